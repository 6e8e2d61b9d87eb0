"""Recall case: a full reduction held by a name before its ``.data[0]`` read.

``n_total = mask.sum()`` is as 0-dim as ``mask.sum()`` read in place, so the
0.3 read ``n_total.data[0]`` raises IndexError on any torch since 0.4, where
the value goes (here: returned next to the loss) does not matter. A name that
may hold something else on one path (a per-row count), that is reshaped in
place, or that holds a reduction along a dimension proves nothing.
"""

import torch


def masked_nll(inp, target, mask):
    n_total = mask.sum()
    cross_entropy = -torch.log(torch.gather(inp, 1, target.view(-1, 1)))
    loss = cross_entropy.masked_select(mask).mean()
    return loss, n_total.data[0]  # expect: GL003:18


def counts(mask, per_row):
    total = mask.sum()
    if per_row:
        total = mask.sum(1)
    first = mask.sum(1)
    kept = mask.sum()
    kept.unsqueeze_(0)
    return total.data[0], first.data[0], kept.data[0]  # expect-not: GL003
