"""Recall case: the trainer's per-batch validation step is a method of its own
that only `validate` calls, once per batch, after `self.model.eval()` and
with gradients on: `self.model` is in eval mode whenever the step runs, and
its forward records a graph for a score read as a number.
"""

from torch import nn


class Trainer:
    def __init__(self, model: nn.Module, loader):
        self.model = model
        self.loader = loader

    def validate(self):
        self.model.eval()
        total = 0.0
        for x, y in self.loader:
            total += self._validate_batch(x, y)
        self.model.train()
        return total / len(self.loader)

    def _validate_batch(self, x, y):
        score = self.model(x)  # expect: GL101:17
        return (score.argmax(1) == y).float().mean().item()
