"""Shape of the recall cause `loss-summed-over-loader-in-comprehension` (benchmarks/recall/first-sight-25.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class CurvatureBackend:
    """Estimates curvature once, and reports the data-set loss for a likelihood kept on the caller."""

    def __init__(self, net: nn.Module, loss_fn):
        self.net = net
        self.loss_fn = loss_fn

    def total_loss(self, batches):
        # each batch's loss keeps the network's graph; the sum holds all of them
        loss = sum([self.loss_fn(self.net(inp), tgt) for inp, tgt in batches])  # expect: GL301
        return loss


backend = CurvatureBackend(nn.Linear(3, 1), nn.MSELoss(reduction="sum"))
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
stored_loss = backend.total_loss(data)
