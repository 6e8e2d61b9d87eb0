"""Precision case (first-sight batches 11 and 12): a test class's ``setUp`` and a
test switch grad off for the thread and never switch it back, in a test module
where nothing computes gradients. What runs after them is the test runner's
choice (often each file in its own process), and no test of the file needs
grad: nothing proves harm, so the default tier is silent; the preview tier
reports every switch.

Recall counterpart: ``test_setup_switch_before_backward.py``.
"""

import unittest

import torch

from mypackage.ops import while_loop


class TestWhileLoop(unittest.TestCase):
    def setUp(self):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9

    def test_simple_linear(self):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        layer = torch.nn.Linear(4, 4)
        out = while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, layer(x)), (0, torch.ones(4)))
        self.assertEqual(out[1].shape, (4,))


def test_addition():
    assert while_loop(lambda i: i < 3, lambda i: (i + 1,), (0,))[0] == 3
