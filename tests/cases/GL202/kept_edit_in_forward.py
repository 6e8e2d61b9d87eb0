"""Recall case (kept): a ``.data`` edit in forward code, on a tensor a recorded op saved.

``torch.relu`` saves its output for backward; masking that output in place
through ``.data`` makes the gradient use the masked values, silently. The
weight clamp runs in the same forward after the weight was used.
"""

import torch
import torch.nn as nn


class GatedLayer(nn.Module):
    def __init__(self, dim, mask):
        super().__init__()
        self.gate = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", mask)

    def forward(self, x):
        h = torch.relu(self.gate(x))
        h.data.mul_(self.mask)  # expect: GL202:9
        out = self.proj(x * h)
        self.proj.weight.data.clamp_(-1.0, 1.0)  # expect: GL202:9
        return out
