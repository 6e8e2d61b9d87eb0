"""Recall case: a sequence model's `predict` puts the model itself in eval
mode and then calls its own sampling method once per batch; `sample`, which
no other code calls, runs `self.forward` token by token with gradients on,
so every step records a graph the sampled indices never need.
"""

import torch
from torch import nn


class Seq2Seq(nn.Module):
    def forward(self, x, y):
        return self.decoder(y, self.encoder(x))

    def sample(self, x, steps=20):
        y = torch.ones(x.shape[0], 1).long()
        for _ in range(steps):
            logits = self.forward(x, y)[:, -1]  # expect: GL101:22
            u = torch.rand(logits.shape[0], 1)
            nxt = (logits.softmax(1).cumsum(1) < u).sum(1, keepdim=True)
            y = torch.cat((y, nxt), dim=1)
        return y

    def predict(self, loader):
        self.eval()
        return [self.sample(x) for (x,) in loader]
