"""Recall case: receivers shown 0-dim by ``torch.mean``/``torch.sum`` without ``dim``.

A gradient-penalty term and a total squared error, each a full reduction: a
0-dim tensor, so ``.data[0]`` raises IndexError whatever the names say.
"""

import torch


def penalty_stats(critic, interpolates, preds, targets):
    scores = critic(interpolates)
    grads = torch.autograd.grad(scores.sum(), interpolates, create_graph=True)[0]
    penalty = torch.mean((grads.flatten(1).norm(dim=1) - 1) ** 2)
    sq = torch.sum((preds - targets) ** 2)
    stats = {}
    stats["penalty"] = penalty.data[0]  # expect: GL003:24
    stats["sq_error"] = sq.data[0]  # expect: GL003:25
    return penalty, stats
