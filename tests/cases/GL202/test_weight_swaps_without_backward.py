"""Precision case (first-sight batch 6): a unit test swaps a layer's weight
through ``.data`` after a forward and only compares outputs: it never runs
backward, so the pending graph is dropped unused when the test returns and no
gradient can be wrong.

Its counterpart, the same swap in a test that then runs ``backward()``, is no
finding of the default tier either: ``linear``'s input has no history, so the
forward saved nothing of the weight (``AddmmBackward0._saved_mat2`` is None)
and the gradients come out the same (checked with torch 2). Only the preview
tier, which takes a forward of the module for a graph that saved it, reports
it.
"""

import torch
from torch import nn


def test_swapped_weight_gives_same_output():
    linear = nn.Linear(4, 4)
    x = torch.randn(2, 4)
    out = linear(x)
    weight = torch.randn(4, 4)
    linear.weight.data = weight  # expect-not: GL202
    assert torch.allclose(linear(x), x @ weight.T + linear.bias)
    assert out.shape == (2, 4)


def test_swapped_weight_then_backward():
    linear = nn.Linear(4, 4)
    x = torch.randn(2, 4)
    out = linear(x)
    linear.weight.data = torch.randn(4, 4)  # expect-not: GL202
    out.sum().backward()
    assert linear.weight.grad is not None
