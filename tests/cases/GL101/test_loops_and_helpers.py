"""Recall case: forwards in a loop that collects their outputs, and an inference
helper, in unit tests.

Policy assumed: a test's graphs are freed when it returns, so a single forward
(see ``test_single_forwards.py``) and a loop whose each output replaces the
last (``out = model(x)`` checked, then dropped) are not reported; a loop that
collects its outputs across iterations keeps every graph alive until the test
ends, unless it runs over a few literal items (``range(3)``): a handful of
graphs freed with the test (first-sight precision batch 28, gpytorch's kernel
tests). A helper that only the tests call (``_predict``) is test code too: its
single forward is freed when the test returns, so it is not reported either.
A function of the file that something else calls is judged as library code.
"""

import torch

from mypackage.models import ResNet18


def _predict(model, images):
    model.eval()
    return model(images).argmax(1)  # expect-not: GL101


def test_batch_sizes():
    model = ResNet18(num_classes=10)
    model.eval()
    for batch_size in (1, 4, 16):
        out = model(torch.randn(batch_size, 3, 32, 32))  # expect-not: GL101
        assert out.shape == (batch_size, 10)


def test_outputs_are_deterministic():
    model = ResNet18(num_classes=10)
    model.eval()
    images = torch.randn(4, 3, 32, 32)
    outputs = []
    for _ in range(3):
        outputs.append(model(images))  # expect-not: GL101
    assert all(torch.equal(o, outputs[0]) for o in outputs)


def test_outputs_of_every_batch(batches):
    model = ResNet18(num_classes=10)
    model.eval()
    outputs = []
    for images in batches:
        outputs.append(model(images))  # expect: GL101:24
    assert len(outputs) == len(batches)


def test_predict_labels_in_range():
    labels = _predict(ResNet18(num_classes=10), torch.randn(4, 3, 32, 32))
    assert ((labels >= 0) & (labels < 10)).all()
