"""Shape of the recall cause `grad-guard-chosen-by-inverted-flag` (benchmarks/recall/first-sight-25.toml).

The wrapper picks its context manager from a flag, but the test is the wrong
way round: the gradient guard is entered only when gradients are asked for,
so the default prediction path runs the model with autograd on.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from contextlib import nullcontext

import torch
import torch.nn as nn


class Wrapped:
    def __init__(self, net: nn.Module):
        self.net = net.eval()

    def scores(self, batch, need_grad=False):
        guard = torch.no_grad() if need_grad else nullcontext()
        with guard:
            return self.net(batch).softmax(-1)  # expect: GL101


w = Wrapped(nn.Linear(5, 3))
print(w.scores(torch.randn(2, 5)).sum().item())
