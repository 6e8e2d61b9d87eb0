from typing import Optional

import torch
from torch import nn


class GridSampler(nn.Module):
    def __init__(self, *, min_x: float, max_x: float, n_pts: int, n_rays: Optional[int] = None):
        super().__init__()
        self.min_x, self.max_x = min_x, max_x
        self._n_pts = n_pts
        self._n_rays = n_rays
        self.register_buffer("_grid", torch.linspace(min_x, max_x, n_pts), persistent=False)

    def forward(self, origins):
        return origins[:, None] + self._grid


class RaySampler(nn.Module):
    def __init__(self, n_pts: int):
        super().__init__()
        self._grid_sampler = GridSampler(min_x=0.0, max_x=1.0, n_pts=n_pts)
        self._act = nn.ReLU()
        self._cache = {}

    def forward(self, origins):
        return self._act(self._grid_sampler(origins))


class LearnedSampler(RaySampler):
    def __init__(self, n_pts: int):
        super().__init__(n_pts)
        self.offset = nn.Linear(n_pts, n_pts)
