"""Recall case (kept): forwards in a loop and in an inference helper, in unit tests.

Policy assumed: a test's single forward is not reported (see
``test_single_forwards.py``), but a forward repeated in a loop and an
inference helper that the tests call are, as in library code.
"""

import torch

from mypackage.models import ResNet18


def _predict(model, images):
    model.eval()
    return model(images).argmax(1)  # expect: GL101:12


def test_batch_sizes():
    model = ResNet18(num_classes=10)
    model.eval()
    for batch_size in (1, 4, 16):
        out = model(torch.randn(batch_size, 3, 32, 32))  # expect: GL101:15
        assert out.shape == (batch_size, 10)


def test_predict_labels_in_range():
    labels = _predict(ResNet18(num_classes=10), torch.randn(4, 3, 32, 32))
    assert ((labels >= 0) & (labels < 10)).all()
