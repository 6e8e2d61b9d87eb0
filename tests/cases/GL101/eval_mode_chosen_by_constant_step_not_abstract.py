"""Precision case: ``self.step`` dispatches to a subclass's override only when
the class's own ``step`` is abstract. ``Runner.step`` is a working default
(a forward and a backward for every batch), so ``evaluate``'s epoch may run
it; and ``Evaluator`` has two subclasses of which only one runs the model.
"""

import numpy as np


class Runner:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def step(self, batch, mode="train"):
        loss = self.model(batch).mean()
        loss.backward()
        return loss.item()

    def _epoch(self, loader, mode="train"):
        if mode == "eval":
            self.model.eval()
        return float(np.mean([self.step(batch, mode) for batch in loader]))

    def evaluate(self, loader):
        return self._epoch(loader, mode="eval")  # expect-not: GL101


class QuietRunner(Runner):
    def step(self, batch, mode="train"):
        out = self.model(batch)
        return out.mean().item()


class Evaluator:
    def __init__(self, model):
        self.model = model

    def step(self, batch, mode="train"):
        raise NotImplementedError

    def _epoch(self, loader, mode="train"):
        if mode == "eval":
            self.model.eval()
        return [self.step(batch, mode) for batch in loader]

    def evaluate(self, loader):
        return self._epoch(loader, mode="eval")  # expect-not: GL101


class Scorer(Evaluator):
    def step(self, batch, mode="train"):
        return self.model(batch).argmax(1).tolist()


class Counter(Evaluator):
    def step(self, batch, mode="train"):
        return len(batch)
