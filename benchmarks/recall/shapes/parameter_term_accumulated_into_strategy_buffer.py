"""Shape of the recall cause `parameter-term-accumulated-into-strategy-buffer` (benchmarks/recall/first-sight-20.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A densification strategy, called after every backward, weighs the position
gradients by a distance computed from the position parameter itself and adds
the result in place into a long-lived statistics buffer; the distance carries
the parameter's graph, so the buffer gains a grad_fn and every step chains
another piece of graph onto it.
"""
import torch
import torch.nn as nn


class Splats(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.positions = nn.Parameter(torch.randn(n, 3))


class Densifier:
    def __init__(self, model):
        self.model = model
        self.grad_accum = torch.zeros(model.positions.shape[0], 1)
        self.grad_count = torch.zeros(model.positions.shape[0], 1)

    def after_backward(self, camera):
        grad = self.model.positions.grad
        seen = (grad != 0).any(dim=1)
        dist = (self.model.positions[seen] - camera).norm(dim=1, keepdim=True)
        self.grad_accum[seen] += torch.norm(grad[seen] * dist, dim=-1, keepdim=True)  # expect: GL301
        self.grad_count[seen] += 1


def fit(steps=3):
    model = Splats(16)
    opt = torch.optim.Adam(model.parameters())
    strategy = Densifier(model)
    for _ in range(steps):
        loss = model.positions.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        strategy.after_backward(torch.zeros(3))
        opt.step()
    return strategy.grad_accum / strategy.grad_count.clamp(min=1)
