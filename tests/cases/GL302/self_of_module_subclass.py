"""Recall case: ``self.requires_grad = False`` in a subclass of ``nn.Conv2d``.

``MeanShift`` derives from ``nn.Conv2d``, so ``self`` in its methods is a
module: the assignment sets a plain attribute and its fixed mean/std weights
still train (recall batch 10, EDSR). ``Frozen`` reaches ``nn.Module`` through
another class of the file and sets it outside ``__init__``. Precision: a plain
class (``Options``) keeping a ``requires_grad`` flag of its own, a static
method whose ``self`` is any argument, and a method that rebinds ``self``.
"""

import torch
import torch.nn as nn


class MeanShift(nn.Conv2d):
    def __init__(self, rgb_range, rgb_mean=(0.4488, 0.4371, 0.4040), sign=-1):
        super(MeanShift, self).__init__(3, 3, kernel_size=1)
        self.weight.data = torch.eye(3).view(3, 3, 1, 1)
        self.bias.data = sign * rgb_range * torch.Tensor(rgb_mean)
        self.requires_grad = False  # expect: GL302:9


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)


class Frozen(Block):
    def freeze(self):
        self.requires_grad = False  # expect: GL302:9


class Options:
    def __init__(self, train_all):
        self.requires_grad = train_all  # expect-not: GL302


class Helpers(nn.Module):
    @staticmethod
    def mark(self):
        self.requires_grad = False  # expect-not: GL302

    def other(self, spec):
        self = spec.clone()
        self.requires_grad = False  # expect-not: GL302
