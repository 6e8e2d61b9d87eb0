"""Recall case: one epoch method serves training and validation, choosing its
phase from the encoder's own `training` flag; `fit` switches the encoder to
eval mode and runs it on the validation episodes, where the flag is false and
the backward branch never runs: the validation forwards record graphs that
nothing uses.
"""

import torch.nn.functional as F


class Trainer:
    def __init__(self, encoder, head, optimizer):
        self.encoder = encoder
        self.head = head
        self.optimizer = optimizer

    def run_epoch(self, batches):
        mode = "train" if self.encoder.training else "val"
        total = 0.0
        for x, y in batches:
            loss = F.cross_entropy(self.head(self.encoder(x)), y)
            total += loss.item()
            if mode == "train":
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        return total / len(batches)

    def fit(self, train, val, epochs):
        for _ in range(epochs):
            self.encoder.train()
            self.run_epoch(train)
            self.encoder.eval()
            print(self.run_epoch(val))  # expect: GL101:19
