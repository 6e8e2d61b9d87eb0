"""Precision case: epoch methods whose backward the eval-mode call does not
rule out: one reads the phase from a flag no model's mode decides, one
switches the encoder back to training mode itself before it reads the flag,
so a backward may run in both, and the forwards' graphs are wanted.
"""

import torch.nn.functional as F


class Trainer:
    def __init__(self, encoder, optimizer, finetune):
        self.encoder = encoder
        self.optimizer = optimizer
        self.finetune = finetune

    def run_epoch(self, batches):
        mode = "train" if self.finetune else "val"
        for x, y in batches:
            loss = F.cross_entropy(self.encoder(x), y)
            if mode == "train":
                loss.backward()
                self.optimizer.step()

    def adapt(self, batches):
        self.encoder.train()
        training = self.encoder.training
        for x, y in batches:
            loss = F.cross_entropy(self.encoder(x), y)
            if training:
                loss.backward()
                self.optimizer.step()

    def fit(self, val):
        self.encoder.eval()
        self.run_epoch(val)  # expect-not: GL101
        self.adapt(val)  # expect-not: GL101
