"""Recall case: ``self.requires_grad = False`` in a subclass of ``nn.Conv2d``.

``MeanShift`` derives from ``nn.Conv2d``, so ``self`` in its methods is a
module: the assignment sets a plain attribute and its fixed mean/std weights
still train (recall batch 10, EDSR). ``Frozen`` reaches ``nn.Module`` through
another class of the file and sets it outside ``__init__``. Precision: a plain
class (``Options``) keeping a ``requires_grad`` flag of its own, a static
method whose ``self`` is any argument, and module classes that keep the flag
as a setting they read back (ELMo's ``requires_grad=self.requires_grad``).
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


class CharEncoder(nn.Module):
    def __init__(self, requires_grad: bool = False):
        super().__init__()
        self.requires_grad = requires_grad  # expect-not: GL302
        self.proj = nn.Linear(4, 4)
        self.proj.weight.requires_grad = self.requires_grad


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.requires_grad = False  # expect-not: GL302

    def forward(self, x):
        return x if self.requires_grad else x.detach()
