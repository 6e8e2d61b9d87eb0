"""Precision case: modules built right where they are evaluated and given no
weights (a cache loader reading stored predictions, a frozen feature
extractor, a head of random weights): nothing shows that their forwards
record a graph anyone would keep, so the default tier leaves them alone.
"""

import torch
from torch import nn


class CacheLoader(nn.Module):
    def __init__(self, path):
        super().__init__()
        self.path = path

    def forward(self, key):
        return torch.load(f"{self.path}/{key}.pt")


class Features(nn.Module):
    def __init__(self, frozen=True):
        super().__init__()
        self.body = nn.Conv2d(3, 8, 3)
        self.body.requires_grad_(not frozen)

    def forward(self, x):
        return self.body(x).mean((2, 3))


def cached_scores(keys, path):
    loader = CacheLoader(path).eval()
    return [loader(k)["score"].item() for k in keys]  # expect-not: GL101


def feature_norms(images):
    features = Features().to("cpu")
    features.eval()
    return [features(x).norm().item() for x in images]  # expect-not: GL101


def random_head_timing(batches):
    head = nn.Linear(512, 10)
    head.eval()
    return [head.forward(b).shape for b in batches]  # expect-not: GL101
