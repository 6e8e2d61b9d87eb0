"""Precision case: weights swapped in through ``.data`` where no graph can have saved them.

``averaged_weights`` swaps averaged weights in for an evaluation that runs under
``no_grad`` (no graph is recorded in the ``with``), ``load_arrays`` copies a
checkpoint into a model before any forward, ``fuse_scale`` folds a scale
into a convolution for deployment, ``convert_layers`` copies weights into
replacement layers, and ``update_baseline`` keeps a running average whose
update only a Python number multiplied (nothing saved it). None of these has
a backward pending on the swapped tensor.
"""

import contextlib

import torch


@contextlib.contextmanager
def averaged_weights(model, averages):
    kept = [p.data for p in model.parameters()]
    for p, avg in zip(model.parameters(), averages):
        p.data = avg  # expect-not: GL202
    yield model
    for p, old in zip(model.parameters(), kept):
        p.data = old  # expect-not: GL202


def evaluate(model, averages, batches):
    correct = 0
    with averaged_weights(model, averages), torch.no_grad():
        for x, y in batches:
            logits = model(x)
            correct += (logits.argmax(1) == y).sum().item()
    return correct


def load_arrays(model, arrays):
    for p, array in zip(model.parameters(), arrays):
        p.data = torch.from_numpy(array)  # expect-not: GL202


def fuse_scale(conv, scale):
    conv.weight.data = conv.weight.data * scale.view(-1, 1, 1, 1)  # expect-not: GL202
    conv.bias.data = conv.bias.data * scale  # expect-not: GL202


def convert_layers(model, make_layer):
    for name, child in model.named_children():
        replacement = make_layer(child)
        if child.bias is not None:
            replacement.bias.data = child.bias.data.clone()  # expect-not: GL202
        model.__setattr__(name, replacement)
        replacement.weight.data = child.weight.data.clone()  # expect-not: GL202


def update_baseline(baseline, cost, beta):
    new = (1 - beta) * cost + beta * baseline
    baseline.data = new.data  # expect-not: GL202
    return cost - baseline
