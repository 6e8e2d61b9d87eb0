"""Precision case: ``clone()`` of an argument used as a working copy.

Both helpers accept any value and copy tensors: one to edit the copy in place
and return it for the caller's computation, one to keep a snapshot of a
tensor it computed itself. Neither keeps a copy of what it was handed past the
call, so no history outlives the step.
"""

import torch


def masked(value, mask):
    if isinstance(value, torch.Tensor):
        out = value.clone()  # expect-not: GL301
        out[mask] = 0
        return out
    return value


class Tracker:
    def __init__(self, model):
        self.model = model
        self.best = None

    def update(self, x, score):
        if isinstance(score, torch.Tensor):
            pred = self.model(x)
            self.best = pred.clone()  # expect-not: GL301
        return masked(score, score < 0) + 1
