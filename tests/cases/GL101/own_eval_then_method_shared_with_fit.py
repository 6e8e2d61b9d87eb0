"""Precision case: the model's own `evaluate` switches it to eval mode and
calls a step method that `fit` also calls in training mode, and `score`
calls its helper only under `no_grad`: neither helper is proven to run in
eval mode with gradients on. The evaluation's own call runs the forward
with gradients on, and is reported there, once.
"""

import torch
from torch import nn


class Classifier(nn.Module):
    def forward(self, x):
        return self.head(self.body(x))

    def _step(self, x, y):
        return nn.functional.cross_entropy(self.forward(x), y)  # expect-not: GL101

    def _logits(self, x):
        return self.forward(x)  # expect-not: GL101

    def fit(self, loader, opt):
        self.train()
        for x, y in loader:
            self._step(x, y).backward()
            opt.step()

    def evaluate(self, loader):
        self.eval()
        return [self._step(x, y).item() for x, y in loader]  # expect: GL101:17

    def score(self, loader):
        self.eval()
        with torch.no_grad():
            return [self._logits(x).argmax(1) for (x,) in loader]
