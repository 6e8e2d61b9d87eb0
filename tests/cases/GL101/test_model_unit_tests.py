"""Precision case, with kept findings: forwards in unit tests.

Policy assumed: in unit tests, a single forward of a small model (a shape or
value check) is not reported, since its graph is freed when the test returns;
a forward repeated in a loop, and an inference helper that the tests call,
are reported, as they are in library code.
"""

import torch

from mypackage.models import ResNet18


def _predict(model, images):
    model.eval()
    return model(images).argmax(1)  # expect: GL101


def test_output_shape():
    model = ResNet18(num_classes=10)
    model.eval()
    out = model(torch.randn(2, 3, 32, 32))  # expect-not: GL101
    assert out.shape == (2, 10)


def test_batch_sizes():
    model = ResNet18(num_classes=10)
    model.eval()
    for batch_size in (1, 4, 16):
        out = model(torch.randn(batch_size, 3, 32, 32))  # expect: GL101
        assert out.shape == (batch_size, 10)


def test_predict_labels_in_range():
    labels = _predict(ResNet18(num_classes=10), torch.randn(4, 3, 32, 32))
    assert ((labels >= 0) & (labels < 10)).all()
