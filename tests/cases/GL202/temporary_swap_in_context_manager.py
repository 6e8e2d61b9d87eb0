"""Recall case: a context manager swaps modified weights in through ``.data`` and swaps the originals back after its ``yield``.

The relevance hook runs the layer with clipped weights inside the ``with`` and
takes the gradient after leaving it. The forward saved the weight tensor
itself; assigning ``.data`` changes its storage without a version-counter
bump, so the restore after ``yield`` silently hands the backward the original
weights instead of the clipped ones (and the clipping edit before the ``yield``
does the same to any graph built before entering).
"""

import contextlib

import torch


@contextlib.contextmanager
def clipped_weights(layer, bound):
    originals = {}
    for name, param in layer.named_parameters(recurse=False):
        originals[name] = param.data
        param.data = param.data.clamp(-bound, bound)  # expect-preview: GL202:9
    try:
        yield layer
    finally:
        for name, value in originals.items():
            getattr(layer, name).data = value


@contextlib.contextmanager
def scaled_weight(layer, factor):
    layer.weight.data.mul_(factor)  # expect-preview: GL202:5
    yield layer
    layer.weight.data.div_(factor)


def relevance(module, inputs, grad_out, bound):
    inputs = inputs.detach().requires_grad_()
    with clipped_weights(module, bound), torch.enable_grad():
        out = module(inputs)
    with scaled_weight(module, 0.5):
        half = module(inputs)
    (grad,) = torch.autograd.grad((out + half,), (inputs,), grad_outputs=(grad_out,))
    return inputs * grad
