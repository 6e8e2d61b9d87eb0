"""Recall case (kept): a wrapper puts its network in eval mode once, in ``__init__``; a method runs it
with gradients on and returns the output as a list of numbers. A tensor's
``.detach().cpu().numpy()`` is a numeric array, and its ``.tolist()`` carries no
graph: nothing a caller gets can take the forward's graph back, so the graph is
built for nothing. An array's method that is not known keeps it unknown.
"""

import numpy as np
import torch
import torch.nn as nn


class Planner:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        self.net.eval()

    def plan(self, state):
        x = torch.from_numpy(np.asarray(state, dtype=np.float32))
        out = self.net(x)  # expect: GL101:15
        return out.detach().cpu().numpy().tolist()

    def scores(self, state):
        x = torch.from_numpy(np.asarray(state, dtype=np.float32))
        out = self.net(x)  # expect: GL101:15
        return out.detach().numpy().astype(np.float64).round(3)

    def raw(self, state):
        x = torch.from_numpy(np.asarray(state, dtype=np.float32))
        out = self.net(x)  # expect-not: GL101
        return out.detach().numpy().view(np.int32)
