"""Precision case: a plain class of the file with an ``eval`` method of its own.

``Scorer`` is no ``nn.Module`` (its only base is ``object``): ``self.scorer.eval()``
runs its own ``eval`` and ``self.scorer(batch)`` its ``__call__``, a matrix
product on weights the caller owns, not a module forward put in eval mode.
Counterpart: ``Head`` is an ``nn.Module``, so ``self.head.eval()`` is a mode
switch and the forward after it records a graph nobody uses.
"""

import torch
from torch import nn


class Scorer:
    def __init__(self, weights):
        self.weights = weights
        self.training = True

    def eval(self):
        self.training = False
        return self

    def __call__(self, x):
        return x @ self.weights


class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, 1)

    def forward(self, x):
        return self.proj(x).squeeze(-1)


class Ranker:
    def __init__(self, weights, dim):
        self.scorer = Scorer(weights)
        self.head = Head(dim)

    def rank(self, batch):
        self.scorer.eval()
        scores = self.scorer(batch)  # expect-not: GL101
        return scores.argsort(descending=True).tolist()

    def rank_with_head(self, batch):
        self.head.eval()
        scores = self.head(batch)  # expect: GL101:18
        return scores.argsort(descending=True).tolist()
