"""Precision case: a constant that chooses eval mode in the callee, where the
forwards after it are no wasted graph or the mode is not chosen at all:
``validate`` runs the epoch under ``torch.no_grad()``; ``tune`` passes a mode
held in an attribute (no constant); ``_epoch``'s only step, ``TentRunner.step``,
adapts the model on every batch (test-time entropy minimisation).
"""

from abc import ABC, abstractmethod

import numpy as np
import torch


class Runner(ABC):
    def __init__(self, model, optimizer, mode="eval"):
        self.model, self.optimizer, self.mode = model, optimizer, mode

    @abstractmethod
    def step(self, batch, mode="train"):
        raise NotImplementedError

    def _epoch(self, loader, mode="train"):
        if mode == "train":
            self.model.train()
        else:
            self.model.eval()
        return float(np.mean([self.step(batch, mode) for batch in loader]))

    def validate(self, loader):
        with torch.no_grad():
            return self._epoch(loader, mode="eval")  # expect-not: GL101

    def tune(self, loader):
        return self._epoch(loader, mode=self.mode)  # expect-not: GL101

    def adapt(self, loader):
        return self._epoch(loader, "eval")  # expect-not: GL101


class TentRunner(Runner):
    def step(self, batch, mode="train"):
        logits = self.model(batch)
        entropy = -(logits.softmax(1) * logits.log_softmax(1)).sum(1).mean()
        entropy.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return entropy.item()
