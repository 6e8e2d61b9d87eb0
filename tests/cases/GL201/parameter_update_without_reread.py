"""Precision case (kept): updating a parameter in place through ``.detach()``.

An EMA update writes into the EMA parameters through ``.detach()`` on
purpose, and nothing reads the original afterwards in the function: a valid
way of updating without autograd.
"""


def ema_update(ema_model, model, decay=0.999):
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.detach().mul_(decay).add_(p.detach(), alpha=1 - decay)  # expect-not: GL201
