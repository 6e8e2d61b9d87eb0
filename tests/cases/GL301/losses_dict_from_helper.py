"""Recall case: losses taken from a dict returned by a helper.

``compute_losses`` returns a dict of loss tensors; the loop over its items
adds each one, with its graph, into a running meter kept on the trainer.
"""

import torch.nn.functional as F


def compute_losses(model, batch):
    recon, mu, logvar = model(batch["image"])
    return {
        "recon": F.mse_loss(recon, batch["image"]),
        "kl": -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean(),
    }


class VAETrainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.meters = {"recon": 0.0, "kl": 0.0}

    def train_epoch(self, loader):
        for batch in loader:
            losses = compute_losses(self.model, batch)
            total = sum(losses.values())
            self.optimizer.zero_grad()
            total.backward()
            self.optimizer.step()
            for name, loss in losses.items():
                self.meters[name] += loss  # expect-preview: GL301:17
