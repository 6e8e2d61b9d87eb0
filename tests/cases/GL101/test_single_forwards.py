"""Precision case: single forwards in unit tests.

Policy assumed: in unit tests, a single forward of a model (a shape or value
check) is not reported, since its graph is freed when the test returns; a
forward repeated in a loop, and an inference helper that the tests call, are
reported as they are in library code (see ``test_loops_and_helpers.py``).
"""

import torch

from mypackage.models import ResNet18


def test_output_shape():
    model = ResNet18(num_classes=10)
    model.eval()
    out = model(torch.randn(2, 3, 32, 32))  # expect-not: GL101
    assert out.shape == (2, 10)


def test_probabilities_sum_to_one():
    model = ResNet18(num_classes=10)
    model.eval()
    probs = model(torch.randn(3, 3, 32, 32)).softmax(dim=1)  # expect-not: GL101
    assert torch.allclose(probs.sum(dim=1), torch.ones(3))
