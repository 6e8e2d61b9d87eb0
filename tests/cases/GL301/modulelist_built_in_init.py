"""Precision case: modules appended to an ``nn.ModuleList`` in ``__init__``.

A transformer stack built from layer classes passed in by configuration:
``attention_cls(...)`` and ``encoder_layer_class(...)`` construct modules,
they do not run a forward. Nothing appended carries an autograd graph.
"""

import torch.nn as nn


class TransformerStack(nn.Module):
    def __init__(self, dim, depth, attention_cls, encoder_layer_class, norm_layer=nn.LayerNorm):
        super().__init__()
        self.attentions = nn.ModuleList()
        self.layers = nn.ModuleList()
        self.norms = nn.ModuleList()
        for _ in range(depth):
            self.attentions.append(attention_cls(dim, heads=8))  # expect-not: GL301
            self.layers.append(encoder_layer_class(dim, dim * 4))  # expect-not: GL301
            self.norms.append(norm_layer(dim))  # expect-not: GL301

    def forward(self, x):
        for attn, layer, norm in zip(self.attentions, self.layers, self.norms):
            x = x + attn(norm(x))
            x = layer(x)
        return x
