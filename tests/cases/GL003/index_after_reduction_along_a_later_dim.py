"""Precision case (first-sight batch 6): ``prob.max(1)[1]`` drops dimension 1 of a
tensor that has at least two, so the indices have at least one dimension and
``.data.cpu().numpy()[0]`` reads the first of them on any torch: no IndexError,
nothing to change.

Recall counterpart: a full reduction (``prob.sum()``) is 0-dim, and ``[0]`` on
it raises today.
"""

import torch


def pick_action(scores):
    prob = torch.softmax(scores, dim=1)
    action = int(prob.max(1)[1].data.cpu().numpy()[0])  # expect-not: GL003
    total = prob.sum().data[0]  # expect: GL003:13
    return action, total
