"""Recall case (issue 26): a tensor's name does not decide whether its ``.data``
is a tensor's. A gate named ``g`` (the name a graph object often has) is
proven a tensor by the ``sigmoid`` that made it, which saved it for its
backward: the edit through ``.data`` corrupts the gradient, as it does for the
same code with the gate named ``gates``. The file holds no other ``.data``,
so the prefilter must let it through on the edit alone.
"""

import torch
import torch.nn as nn


class GatedUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask):
        g = torch.sigmoid(self.gate(x))
        g.data.mul_(mask)  # expect: GL202:9
        return self.proj(x) * g
