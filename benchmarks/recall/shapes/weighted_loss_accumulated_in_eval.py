"""Shape of the recall cause `weighted-loss-accumulated-in-eval` (benchmarks/recall/first-sight-12.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def evaluate(model, criterion, loader):
    # the evaluation needs gradients (an input-gradient term), so it cannot run under no_grad
    total, seen, loss_sum, grad_term_sum = 0.0, 0, 0, 0
    for x, y in loader:
        x.requires_grad = True
        out = model(x)
        (dx,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        grad_term = dx.pow(2).mean()
        loss_sum += criterion(out, y) * y.size(0)  # expect: GL301
        grad_term_sum += grad_term * y.size(0)  # expect: GL301
        seen += y.size(0)
    return loss_sum / seen, grad_term_sum / seen
