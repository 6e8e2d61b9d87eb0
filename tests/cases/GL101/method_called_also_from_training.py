"""Precision case: a step method that the training loop calls too (the model
in training mode), one whose only caller runs it under `no_grad`, and a step
of a class whose base another package defines (which may call it itself):
none is proven to run an eval-mode model with gradients on.
"""

import torch
from torch import nn

from framework import BaseTrainer


class Trainer:
    def __init__(self, model: nn.Module):
        self.model = model

    def fit(self, train, val, opt):
        for x, y in train:
            loss = self._step(x, y)
            loss.backward()
            opt.step()
        self.model.eval()
        with torch.no_grad():
            scores = [self._score(x, y) for x, y in val]
        return [self._step(x, y).item() for x, y in val], scores

    def _step(self, x, y):
        return nn.functional.cross_entropy(self.model(x), y)  # expect-not: GL101

    def _score(self, x, y):
        return (self.model(x).argmax(1) == y).float().mean().item()  # expect-not: GL101


class Validator(BaseTrainer):
    def validate(self, val):
        self.model.eval()
        return [self._validate_batch(x, y) for x, y in val]

    def _validate_batch(self, x, y):
        return (self.model(x).argmax(1) == y).float().mean().item()  # expect-not: GL101
