"""Precision case: slot replacement ``cache[i] = ...``.

One decoding step of a transformer with a key/value cache: each layer's slot
is overwritten with its new state. The cache holds one entry per layer
whatever the number of steps; nothing grows.
"""

import torch.nn as nn


class CachedDecoder(nn.Module):
    def __init__(self, embed, layers, lm_head):
        super().__init__()
        self.embed = embed
        self.layers = nn.ModuleList(layers)
        self.lm_head = lm_head

    def step(self, token, cache):
        h = self.embed(token)
        for i, decoder_layer in enumerate(self.layers):
            h, kv = decoder_layer(h, past=cache[i])
            cache[i] = kv  # expect-not: GL301
        return self.lm_head(h[:, -1])
