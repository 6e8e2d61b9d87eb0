"""Recall case: a dict of losses from a per-batch method, summed by its items.

``train_one_batch`` runs the step and returns the loss function's dict of
losses (tensors with their graphs). The epoch loop walks its items and adds
each one, weighted by the batch size, into a per-name total that it returns:
the inner loop is over loss names, the outer one over the data loader.
"""

from collections import defaultdict

import torch


class Solver:
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer

    def train_one_batch(self, images, targets):
        self.optimizer.zero_grad()
        loss, loss_parts = self.loss_fn(self.model(images), targets)
        loss.backward()
        self.optimizer.step()
        return loss_parts

    def train_one_epoch(self, dataloader):
        totals = defaultdict(lambda: torch.tensor(0.0))
        samples = 0
        for batch_size, images, targets in dataloader:
            parts = self.train_one_batch(images, targets)
            for name, value in parts.items():
                totals[name] += value * batch_size  # expect-preview: GL301:17
            samples += batch_size
        return {name: total / samples for name, total in totals.items()}
