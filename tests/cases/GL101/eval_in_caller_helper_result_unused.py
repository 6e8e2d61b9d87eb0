"""Recall case (first-sight recall batch 8): the caller sets eval mode and hands
the model to a helper whose result goes nowhere a backward could see.

``validate`` sums every batch's loss, so each batch's graph stays alive until
it returns. Its only caller puts the model in eval mode with
``model.train(False)`` and then only compares, logs and keeps the number: the
forward is reported in the helper. ``probe``'s sum is backpropagated by its
caller, and ``measure``'s goes to callers the file does not show: both silent.
"""

import logging

import torch.nn.functional as F

from model import build


def validate(model, loader):
    total = 0
    for x, y in loader:
        out = model(x)  # expect: GL101:15
        total += F.cross_entropy(out, y)
    return total / len(loader)


def probe(model, loader):
    total = 0
    for x, y in loader:
        total += F.cross_entropy(model(x), y)
    return total


def measure(model, loader):
    total = 0
    for x, y in loader:
        total += F.cross_entropy(model(x), y)
    return total


def fit(conf, val_loader):
    model, best = build(conf), None
    model.train(False)
    val = validate(model, val_loader)
    model.train(True)
    logging.info("validation loss %.4f", val)
    if best is None or val < best:
        best = val


def tune(conf, loader):
    model = build(conf)
    model.eval()
    probe(model, loader).backward()


def report(conf, loader):
    model = build(conf)
    model.eval()
    return measure(model, loader)
