"""Precision case: helpers that edit, through ``.data``, what no pending graph holds.

``clip_weights`` gets parameters (leaves: no op produced them), ``renormalise``
gets a network output only after the backward that freed its graph, and
``centre`` gets a freshly made noise tensor. These are GL204's (the pre-0.4
idiom), not silent gradient corruption.
"""

import torch


def clip_weights(weight, bound):
    weight.data.clamp_(-bound, bound)  # expect-not: GL202


def renormalise(embedding):
    embedding.data.div_(embedding.data.norm(dim=1, keepdim=True))  # expect-not: GL202


def centre(noise):
    noise.data -= noise.data.mean()  # expect-not: GL202
    return noise


def train_step(encoder, batch, optimizer, bound):
    optimizer.zero_grad()
    embedding = encoder(batch)
    loss = embedding.pow(2).mean()
    loss.backward()
    optimizer.step()
    renormalise(embedding)
    for p in encoder.parameters():
        clip_weights(p, bound)
    return centre(torch.randn(batch.size(0), 8))
