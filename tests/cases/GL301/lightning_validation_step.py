"""Precision case: accumulation in a Lightning ``validation_step``.

The trainer runs ``validation_step`` with gradients disabled, so the losses of
the crops accumulated there carry no graph.
"""

import pytorch_lightning as pl
import torch
import torch.nn.functional as F


class SegmentationModule(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.val_crop_losses = []

    def validation_step(self, batch, batch_idx):
        images, masks = batch
        total = 0.0
        for crop, crop_mask in zip(images.split(256, dim=-1), masks.split(256, dim=-1)):
            loss = F.cross_entropy(self.net(crop), crop_mask)
            total += loss  # expect-not: GL301
            self.val_crop_losses.append(loss)  # expect-not: GL301
        self.log("val_loss", total)

    def on_validation_epoch_end(self):
        self.log("val_crop_mean", torch.stack(self.val_crop_losses).mean())
        self.val_crop_losses.clear()
