"""Precision case (first-sight precision batch 28, gpytorch's kernel tests): a unit
test fills a comparison tensor from a loop over ``range(2)`` of an eval-mode
kernel's forwards. The two small graphs live until the test returns; nobody would
guard a value test for them. A loop over data of unknown length, keeping every
output, is still reported.
"""

import unittest

import torch
from torch import nn


class TestKernel(unittest.TestCase):
    def test_batch_matches_loop(self):
        kernel = nn.Bilinear(3, 3, 2)
        kernel.eval()
        a, b = torch.randn(2, 4, 3), torch.randn(2, 4, 3)
        actual = torch.zeros(2, 4, 2)
        for k in range(2):
            actual[k] = kernel(a[k], b[k])  # expect-not: GL101
        for k in (0, 1):
            actual[k] += kernel(a[k], b[k])  # expect-not: GL101
        self.assertTrue(torch.allclose(kernel(a, b) * 2, actual, atol=1e-5))

    def test_every_batch(self):
        model = nn.Linear(3, 2)
        model.eval()
        loader = [torch.randn(4, 3) for _ in range(100)]
        outputs = []
        for batch in loader:
            outputs.append(model(batch))  # expect: GL101:28
        self.assertEqual(len(outputs), 100)
