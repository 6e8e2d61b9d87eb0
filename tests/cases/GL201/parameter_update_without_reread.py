"""Precision case (kept): in-place edits through ``.detach()`` that alias nothing read later.

An EMA update writes into the EMA parameters through ``.detach()`` on
purpose, and nothing reads the original afterwards in the function: a valid
way of updating without autograd. A target built from ``.detach().clone()``
is a copy, so editing it leaves ``q_values`` alone.
"""

import torch.nn.functional as F


def ema_update(ema_model, model, decay=0.999):
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.detach().mul_(decay).add_(p.detach(), alpha=1 - decay)  # expect-not: GL201


def masked_td_loss(q_values, targets, done_mask):
    target = q_values.detach().clone()
    target[done_mask] = targets[done_mask]  # expect-not: GL201
    return F.mse_loss(q_values, target)
