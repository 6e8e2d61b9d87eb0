"""Precision case: a test that runs backward through a value computed under
``no_grad`` to check that autograd raises (first-sight batch 8: a kernel
library's tests). The error is what the code asks for: ``try`` with an
``except RuntimeError`` (or ``Exception``, a bare ``except``) that asserts on
it or sits in a test function, ``pytest.raises`` and ``assertRaises``. A
``try`` that only prints, outside tests (it may hide a skipped training
step), or one around something else, does not.
"""

import unittest

import pytest
import torch


def _check_backward_raises(x):
    with torch.no_grad():
        loss = (x * 2).sum()
    try:
        loss.backward()  # expect-not: GL103
    except (ValueError, RuntimeError) as e:
        assert "does not require grad" in str(e)


def test_backward_raises_under_pytest(x):
    with torch.no_grad():
        loss = (x * 2).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        loss.backward()  # expect-not: GL103


class TestKernel(unittest.TestCase):
    def test_backward(self):
        x = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            loss = (x * 2).sum()
        with self.assertRaises(RuntimeError):
            loss.backward()  # expect-not: GL103


def train_step(x):
    with torch.no_grad():
        loss = (x * 2).sum()
    try:
        loss.backward()  # expect: GL103
    except RuntimeError as e:
        print("skipped a step:", e)


def train_after_try(x):
    with torch.no_grad():
        loss = (x * 2).sum()
    try:
        x = x + 1
    except RuntimeError:
        pass
    loss.backward()  # expect: GL103
