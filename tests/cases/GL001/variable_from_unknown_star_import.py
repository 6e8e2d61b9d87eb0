"""Precision case: ``Variable`` may come from any module.

A star import of a module outside torch may bring a ``Variable`` of its own
(a logic variable, a symbolic one), and so may one that follows the star import
of ``torch.autograd``: what the name denotes is not known, and it is not
reported as torch's.
"""

from torch.autograd import *
from .logic import *


def solve(seq):
    seq = Variable(seq, volatile=True)  # expect-not: GL001
    return seq
