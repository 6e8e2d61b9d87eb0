"""Precision case: one branch of the loader's `if` builds the encoder without
switching it (it is fine-tuned later), so after `__init__` the attribute may
be in training mode: nothing proves the forward an evaluation.
"""

from torch import nn


class EmbeddingLoader:
    def __init__(self, name):
        self.encoder = None
        if name == "frozen":
            self.encoder = nn.Sequential(nn.Linear(32, 64), nn.Tanh())
            self.encoder.eval()
        else:
            self.encoder = nn.Sequential(nn.Linear(32, 64), nn.Tanh())

    def embed_all(self, batches):
        return [self.encoder(batch).detach().numpy() for batch in batches]  # expect-not: GL101
