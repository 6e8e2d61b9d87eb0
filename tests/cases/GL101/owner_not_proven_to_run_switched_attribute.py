"""Precision case: objects whose call is not proven to run the attribute that
was switched: a wrapper whose `forward` runs it under `no_grad`, one that runs
another attribute, and a value whose class is not known.
"""

import torch
from torch import nn


class Guarded(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.net = backbone

    @torch.no_grad()
    def forward(self, x):
        return self.net(x)


class Headed(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.net = backbone
        self.head = head

    def forward(self, x):
        return self.head(x)


def evaluate(guarded: Guarded, headed: Headed, other, loader):
    guarded.net.eval()
    headed.net.eval()
    other.net.eval()
    hits = 0
    for x, y in loader:
        hits += (guarded(x).argmax(1) == y).sum().item()  # expect-not: GL101
        hits += (headed(x).argmax(1) == y).sum().item()  # expect-not: GL101
        hits += (other(x).argmax(1) == y).sum().item()  # expect-not: GL101
    return hits
