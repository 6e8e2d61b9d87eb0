"""Recall case (issue 26, batch 12's pose-estimation training runner): ``fit``
validates through ``self._epoch(valid_loader, mode="eval")``. The constant
takes ``_epoch`` into its ``elif mode == "eval": self.model.eval()`` and then
to ``self.step(batch, mode)``, abstract in ``TrainingRunner`` and defined by
the file's subclass, whose backward sits under ``if mode == "train":``: the
whole validation epoch runs the model with gradients on, reported at the call
that chooses the mode. Silent twin: the training epoch (``mode="train"``).
"""

from abc import ABCMeta, abstractmethod

import numpy as np


class TrainingRunner(metaclass=ABCMeta):
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    @abstractmethod
    def step(self, batch, mode="train"):
        """A gradient update (``"train"``) or a validation step (``"eval"``)."""

    def fit(self, train_loader, valid_loader, epochs):
        for e in range(epochs):
            train_loss = self._epoch(train_loader, mode="train")  # expect-not: GL101
            valid_loss = self._epoch(valid_loader, mode="eval")  # expect: GL101:26
            print(f"epoch {e}: train loss {train_loss:.5f}, valid loss {valid_loss:.5f}")

    def _epoch(self, loader, mode="train"):
        if mode == "train":
            self.model.train()
        elif mode == "eval" or mode == "inference":
            self.model.eval()
        else:
            raise ValueError(f"Runner mode must be train or eval, found mode={mode}.")
        epoch_loss = []
        for batch in loader:
            losses = self.step(batch, mode)
            epoch_loss.append(losses["total_loss"])
        return np.mean(epoch_loss).item()


class PoseTrainingRunner(TrainingRunner):
    def step(self, batch, mode="train"):
        if mode == "train":
            self.optimizer.zero_grad()
        outputs = self.model(batch["image"])
        losses = self.model.get_loss(outputs, batch["annotations"])
        if mode == "train":
            losses["total_loss"].backward()
            self.optimizer.step()
        return {k: v.detach().cpu().numpy() for k, v in losses.items()}
