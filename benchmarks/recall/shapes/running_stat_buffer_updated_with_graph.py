"""Shape of the recall cause `running-stat-buffer-updated-with-graph` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Norm(nn.Module):
    def __init__(self, channels, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running", torch.zeros(channels))

    def forward(self, x):
        mean = x.mean(dim=(0, 2, 3))
        if self.training:
            self.running[:] = self.running * (1 - self.momentum) + mean * self.momentum  # expect: GL301
        return x - mean.view(1, -1, 1, 1)
