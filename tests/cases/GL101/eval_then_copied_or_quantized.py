"""Recall case (first-sight recall batch 27): an inference script puts the model in eval
mode, then may swap it for a dynamically quantized copy (``quantize_dynamic`` copies
the model and calls ``eval()`` on the copy) or a deep copy (which keeps the mode):
either way the model that runs is in eval mode, and its forwards record graphs.

Precision counterpart: a name rebound to a copy of another module holds a module
whose mode the file does not show.
"""

import copy

import torch
from torch import nn


def predict_lines(model, lines, encode, quantize):
    model.eval()
    if quantize:
        model = torch.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    labels = []
    for line in lines:
        logits = model(encode(line))  # expect: GL101:18
        labels.append(logits.argmax(1).item())
    return labels


def predict_with_copy(model, batches):
    model.eval()
    model = copy.deepcopy(model)
    return [model(x).argmax(1).tolist() for x in batches]  # expect: GL101:13


def predict_with_teacher(model, teacher, batches):
    model.eval()
    model = copy.deepcopy(teacher)
    return [model(x).argmax(1).tolist() for x in batches]  # expect-not: GL101
