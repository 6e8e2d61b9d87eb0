"""Precision case: classes built around a model whose call is not proven to be
that model's forward as the caller runs it: one runs it under `no_grad`, one
keeps a copy (`self.model` rebound in `reset`), one trains it, and a plain
class (no `nn.Module`) has only a `forward`, which calling it never runs.
"""

import torch
from torch import nn


class Guarded(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        with torch.no_grad():
            return self.model(x)


class Copying(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def reset(self, other):
        self.model = other

    def forward(self, x):
        return self.model(x)


class Tuning(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        self.model.train()
        return self.model(x)


class Plain:
    def __init__(self, model):
        self.model = model

    def forward(self, x):
        return self.model(x)


def score(model, loader):
    guarded, copying, tuning, plain = Guarded(model), Copying(model), Tuning(model), Plain(model)
    model.eval()
    scores = []
    for x, _ in loader:
        scores += guarded(x).tolist()  # expect-not: GL101
        scores += copying(x).tolist()  # expect-not: GL101
        scores += tuning(x).tolist()  # expect-not: GL101
        scores += plain(x).tolist()  # expect-not: GL101
    return scores
