"""Shape of the recall cause `estimate-from-callable-loss-appended` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def finite_difference_gradient(loss_fn, x, delta=0.01, iters=8):
    # loss_fn closes over a model; the estimate never needs autograd
    estimates = []
    for _ in range(iters):
        step = delta * torch.sign(torch.rand_like(x) - 0.5)
        diff = loss_fn(x + step) - loss_fn(x - step)  # expect: GL1xx
        estimates.append(diff.unsqueeze(-1) * step / (2 * delta))  # expect: GL301
    return torch.cat(estimates).mean(0)


net = torch.nn.Linear(4, 1)
print(finite_difference_gradient(lambda z: net(z).sum(), torch.randn(1, 4)))
