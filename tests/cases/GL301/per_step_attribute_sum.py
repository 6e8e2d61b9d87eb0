"""Recall case: ``self.batch_loss_value += loss`` in a per-step method.

There is no loop in ``train_step``: the loop is the caller's, and the
attribute outlives every call, so it accumulates each step's graph.
"""

import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.criterion = nn.CrossEntropyLoss()
        self.batch_loss_value = 0.0
        self.steps = 0

    def train_step(self, images, labels):
        loss = self.criterion(self.model(images), labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.batch_loss_value += loss  # expect: GL301:9
        self.steps += 1

    def epoch_loss(self):
        return self.batch_loss_value / max(self.steps, 1)
