"""Recall case: a loader that is no `nn.Module` starts its encoder as a `None`
placeholder, then loads it in one branch or another of an `if` (the last
branch raises), each switching it to eval mode; every other method then
runs it in eval mode, and the alignment loop runs it with gradients on,
keeping only NumPy copies.
"""

import torch
from torch import nn


class EmbeddingLoader:
    def __init__(self, name, path):
        self.encoder = None
        if name == "small":
            self.encoder = nn.Sequential(nn.Linear(32, 64), nn.Tanh())
            self.encoder.eval()
        elif name == "large":
            self.encoder = nn.Sequential(nn.Linear(32, 256), nn.Tanh())
            self.encoder.load_state_dict(torch.load(path))
            self.encoder.eval()
        else:
            raise ValueError(f"unknown encoder {name!r}")

    def embed_all(self, batches):
        return [self.encoder(batch).detach().numpy() for batch in batches]  # expect: GL101:17
