"""Shape of the recall cause `global-grad-switch-in-method` (benchmarks/recall/first-sight-21.toml).

A library method turns autograd off with a bare `torch.set_grad_enabled(False)`
statement before its inference and never restores it, so after one call the
caller's own training code silently builds no graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class KeypointReader:
    def __init__(self):
        self.net = nn.Linear(16, 4)
        self.net.eval()

    def read(self, batch):
        torch.set_grad_enabled(False)  # expect: GL105
        return [self.net(x).argmax(-1) for x in batch]
