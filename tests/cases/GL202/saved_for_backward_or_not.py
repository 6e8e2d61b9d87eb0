"""Precision case (issue 26, first-sight batch 10), with recall counterparts: an
edit through ``.data`` is GL202's only where an op is proven to have saved the
edited tensor.

Tacotron 2's attention masks energies that a bias-free ``Linear`` and a
``squeeze`` produced: neither saves its output, and the ``softmax`` that reads
the edited values runs after the edit, so no pending backward reads them. Nor
does ``s * 2.0`` save ``s``. A gate computed by ``sigmoid`` (which saves its
output) and a hidden state already multiplied by a tensor with history (the
product saved it for the other factor's gradient) are read by their backward:
the edit corrupts the gradient, silently.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LocationAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.query = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, 1, bias=False)

    def energies(self, query, memory):
        return self.v(torch.tanh(self.query(query).unsqueeze(1) + memory)).squeeze(-1)

    def forward(self, query, memory, mask):
        alignment = self.energies(query, memory)
        alignment.data.masked_fill_(mask, -1e20)  # expect-not: GL202
        weights = F.softmax(alignment, dim=1)
        return torch.bmm(weights.unsqueeze(1), memory).squeeze(1)


class GatedUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask):
        gates = torch.sigmoid(self.gate(x))
        gates.data.mul_(mask)  # expect: GL202:9
        h = self.proj(x)
        y = h * gates
        h.data.clamp_(-1.0, 1.0)  # expect: GL202:9
        s = self.proj(y)
        t = s * 2.0
        s.data.clamp_(-5.0, 5.0)  # expect-not: GL202
        return t
