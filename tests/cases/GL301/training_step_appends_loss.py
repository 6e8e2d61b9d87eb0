"""Recall case: a Lightning ``training_step`` appends its loss to a list attribute.

The trainer calls ``training_step`` once per batch and runs ``backward()`` on
the returned loss; the list keeps every step's graph until the epoch ends.
"""

import pytorch_lightning as pl
import torch
import torch.nn.functional as F


class Classifier(pl.LightningModule):
    def __init__(self, backbone, lr=1e-3):
        super().__init__()
        self.backbone = backbone
        self.lr = lr
        self.train_losses = []

    def training_step(self, batch, batch_idx):
        images, labels = batch
        loss = F.cross_entropy(self.backbone(images), labels)
        self.train_losses.append(loss)  # expect: GL301:9
        return loss

    def on_train_epoch_end(self):
        self.log("train_loss_epoch", torch.stack(self.train_losses).mean())
        self.train_losses.clear()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr)
