"""Recall case: the twin of ``test_setup_switch_without_backward.py`` whose test
module also backpropagates. A ``setUp`` that switches grad off for the thread
leaves it off for the test that calls ``backward`` (after the first ``setUp``,
every test of the class runs with grad off), so the default tier reports it.
"""

import unittest

import torch


class TestLayer(unittest.TestCase):
    def setUp(self):
        torch.set_grad_enabled(False)  # expect: GL105:9
        self.layer = torch.nn.Linear(4, 4)

    def test_shape(self):
        self.assertEqual(self.layer(torch.ones(4)).shape, (4,))

    def test_gradient(self):
        self.layer(torch.ones(4)).sum().backward()
        self.assertIsNotNone(self.layer.weight.grad)
