"""Precision case: accumulation in a Lightning callback's validation hook.

``on_validation_epoch_end`` of a ``Callback`` runs inside the trainer's
evaluation loop, with gradients disabled: the samples it collects from the
module's generator carry no graph.
"""

import pytorch_lightning as pl
import torch


class SampleImagesCallback(pl.Callback):
    def __init__(self, fixed_noise, every_n_epochs=5):
        self.fixed_noise = fixed_noise
        self.every_n_epochs = every_n_epochs
        self.samples = []

    def on_validation_epoch_end(self, trainer, pl_module):
        if trainer.current_epoch % self.every_n_epochs:
            return
        grid = []
        for z in self.fixed_noise.split(16):
            grid.append(pl_module.generator(z.to(pl_module.device)))  # expect-not: GL301
        self.samples.append(torch.cat(grid).cpu())
