"""Recall case: ``self.model[key]`` over a dict of models after ``.eval()`` in a loop.

A GAN-style trainer keeps its networks in a dict; evaluation puts each in
eval mode in a loop, then runs them by key.
"""

import torch.nn as nn


class MultiNetTrainer:
    def __init__(self, encoder, decoder):
        self.model = nn.ModuleDict({"encoder": encoder, "decoder": decoder})

    def reconstruction_error(self, loader):
        for key in self.model:
            self.model[key].eval()
        error = 0.0
        for images in loader:
            codes = self.model["encoder"](images)  # expect: GL101:21
            recon = self.model["decoder"](codes)
            error += (recon - images).abs().mean().item()
        return error / len(loader)
