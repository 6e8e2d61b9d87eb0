"""Recall case: a loss module held on an annotated attribute,
``self.fn: nn.Module = nn.MSELoss()``, whose output is read as
``out.data[0]``.

An annotated assignment with a value writes the attribute just as a plain one
does: the default reduction gives a 0-dim tensor, and ``.data[0]`` raises
IndexError. Twin that stays silent: ``self.per_item: nn.Module =
nn.MSELoss(reduction="none")`` keeps one value per element.
"""

import torch.nn as nn


class Trainer:
    def __init__(self, model: nn.Module) -> None:
        self.model = model
        self.fn: nn.Module = nn.MSELoss()
        self.per_item: nn.Module = nn.MSELoss(reduction="none")

    def step(self, x, y):
        pred = self.model(x)
        out = self.fn(pred, y)
        first = self.per_item(pred, y)
        return out.data[0], first.data[0]  # expect: GL003:16
