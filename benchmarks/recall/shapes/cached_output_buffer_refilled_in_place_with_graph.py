"""Shape of the recall cause `cached-output-buffer-refilled-in-place-with-graph` (benchmarks/recall/first-sight-20.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A module keeps a pre-allocated output buffer as a plain attribute and, on
every forward, zeroes it and scatters the graph-carrying per-item values
into it in place. The buffer itself then carries a grad_fn, and the next
call's in-place zero_/scatter_add_ chains onto the previous call's graph,
so the history grows with every forward of a long simulation loop.
"""
import torch
import torch.nn as nn


class PairEnergy(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(1.0))
        self._totals = None

    def forward(self, pos, owner, n_groups):
        per_item = self.scale * (pos ** 2).sum(-1)
        if self._totals is None or self._totals.shape[0] != n_groups:
            self._totals = torch.empty(n_groups, dtype=pos.dtype)
        self._totals.zero_()
        self._totals.scatter_add_(0, owner, per_item)  # expect: GL301
        return self._totals.clone()
