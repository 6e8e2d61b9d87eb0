"""Precision case: a forward inside ``pytest.raises`` in a unit test.

The forward is expected to raise before it computes anything: no graph is
kept, and wrapping it in ``torch.no_grad()`` would add nothing.
"""

import pytest
import torch

from mypackage.models import UNet


def test_rejects_wrong_channel_count():
    model = UNet(in_channels=3, out_channels=1)
    model.eval()
    with pytest.raises(RuntimeError, match="channels"):
        model(torch.randn(1, 4, 64, 64))  # expect-not: GL101


def test_rejects_odd_resolution():
    model = UNet(in_channels=3, out_channels=1)
    model.eval()
    with pytest.raises(ValueError):
        model(torch.randn(1, 3, 63, 63))  # expect-not: GL101
