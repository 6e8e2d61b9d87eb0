"""Precision case (issue 26), the twin of ``tensor_named_like_a_graph.py``: the
same edit of ``g.data`` where ``g`` is a graph object the file does not prove a
tensor (a message-passing graph whose ``.data`` holds node features) stays
unreported, in both tiers; so does a proven tensor's ``.data`` edited where no
op saved it (the output of a ``Linear``, which saves its input, not its output).
"""

import torch
import torch.nn as nn


class MessagePassing(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, g, x, mask):
        h = torch.sigmoid(self.gate(x))
        g.data.mul_(mask)  # expect-not: GL202
        graph = self.gate(h)
        graph.data.mul_(mask)  # expect-not: GL202
        return h * graph
