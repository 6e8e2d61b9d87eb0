"""Recall case (issue 26, batch 12's pose-estimation runner): ``validate`` puts
the model in eval mode and runs every batch through ``self.step(batch,
mode="eval")``, a method whose backward and optimizer step sit under ``if mode
== "train":``: a string constant rules that branch out for this call, so the
forward records a graph for nothing.

Silent twins: ``train_epoch`` leaves ``mode`` at its default (``"train"``) in
eval mode (frozen batch norm); ``probe`` passes a mode the tests do not decide
(``"adapt"`` is neither ruled in nor out by ``mode not in ("eval",)``).
"""

import numpy as np


class PoseTrainingRunner:
    def __init__(self, model, optimizer, device="cpu"):
        self.model, self.optimizer, self.device = model, optimizer, device

    def step(self, batch, mode="train"):
        if mode not in ["train", "eval", "adapt"]:
            raise ValueError(f"mode must be train, eval or adapt, found {mode}")
        inputs = batch["image"].to(self.device)
        outputs = self.model(inputs)
        losses = self.model.get_loss(outputs, batch["annotations"])
        if mode == "train" or mode not in ("eval",):
            self.optimizer.zero_grad()
            losses["total_loss"].backward()
            self.optimizer.step()
        return {k: v.detach().cpu().numpy() for k, v in losses.items()}

    def validate(self, loader):
        self.model.eval()
        epoch_loss = []
        for batch in loader:
            losses = self.step(batch, mode="eval")  # expect: GL101:22
            epoch_loss.append(losses["total_loss"])
        return float(np.mean(epoch_loss))

    def train_epoch(self, loader):
        self.model.eval()
        for batch in loader:
            self.step(batch)  # expect-not: GL101

    def probe(self, loader):
        self.model.eval()
        for batch in loader:
            self.step(batch, "adapt")  # expect-not: GL101
