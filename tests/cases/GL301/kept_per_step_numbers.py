"""Precision case (kept): per-step methods that keep numbers or detached tensors.

The same per-step shapes as the leaks, done right: the attribute totals add
``loss.item()``, the list keeps ``loss.detach()``, and the per-loss meters add
numbers. Nothing holds a graph across steps.
"""

import pytorch_lightning as pl
import torch.nn.functional as F


class Regressor(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.batch_loss_value = 0.0
        self.train_losses = []
        self.meters = {"l1": 0.0, "l2": 0.0}

    def training_step(self, batch, batch_idx):
        x, y = batch
        pred = self.net(x)
        losses = {"l1": F.l1_loss(pred, y), "l2": F.mse_loss(pred, y)}
        loss = losses["l1"] + losses["l2"]
        self.batch_loss_value += loss.item()  # expect-not: GL301
        self.train_losses.append(loss.detach())  # expect-not: GL301
        for name, value in losses.items():
            self.meters[name] += value.item()  # expect-not: GL301
        return loss
