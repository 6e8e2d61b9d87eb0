"""Precision case (first-sight batch 4): helpers of a test file that only its tests
call. A parity helper runs one forward of a reference model in eval mode and
compares the result; the graph is freed when the test returns, so, like a
single forward in a test function, it is not reported. A helper that loops,
keeping every output's graph, is.
"""

import torch
from torch import nn


def make_models():
    return nn.Linear(4, 2), nn.Linear(4, 2)


def assert_forward_matches(reference, model, batch):
    reference.eval()
    expected = reference(batch)  # expect-not: GL101
    torch.testing.assert_close(model(batch), expected)


def collect_outputs(model, batches):
    model.eval()
    outputs = []
    for batch in batches:
        outputs.append(model(batch))  # expect: GL101:24
    return len(outputs)


def test_parity():
    reference, model = make_models()
    model.load_state_dict(reference.state_dict())
    assert_forward_matches(reference, model, torch.randn(3, 4))


def test_outputs_kept():
    _, model = make_models()
    assert collect_outputs(model, [torch.randn(3, 4)] * 3) == 3
