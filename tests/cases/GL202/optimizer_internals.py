"""Precision case: an optimizer's own update of its parameters and state.

``step()`` runs after ``backward()``, on gradients already computed: the
parameter and state edits through ``.data`` are the update itself.
"""

import math

import torch
from torch.optim import Optimizer


class AdamW(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad.data
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p.data)
                    state["exp_avg_sq"] = torch.zeros_like(p.data)
                beta1, beta2 = group["betas"]
                state["step"] += 1
                state["exp_avg"].data.mul_(beta1).add_(grad, alpha=1 - beta1)  # expect-not: GL202
                state["exp_avg_sq"].data.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)  # expect-not: GL202
                denom = state["exp_avg_sq"].sqrt().add_(group["eps"])
                step_size = group["lr"] * math.sqrt(1 - beta2 ** state["step"]) / (1 - beta1 ** state["step"])
                p.data.mul_(1 - group["lr"] * group["weight_decay"])  # expect-not: GL202
                p.data.addcdiv_(state["exp_avg"], denom, value=-step_size)  # expect-not: GL202
