"""Precision case: the 0.3 branch of a check of ``torch.__version__``.

A code base that ran on 0.3 and 0.4 kept both spellings: on today's torch only
the first branch runs, and in the second, the one for torch older than 0.4,
``volatile=`` still did what it says. The flag in the branch that runs today
is reported.
"""

from distutils.version import LooseVersion

import torch
from torch.autograd import Variable

IS_TORCH_04 = LooseVersion(torch.__version__) >= LooseVersion("0.4")


def create_variable(x, volatile, requires_grad=False):
    if IS_TORCH_04:
        x = Variable(x, requires_grad=requires_grad, volatile=volatile)  # expect: GL001
    else:
        x = Variable(x, requires_grad=requires_grad, volatile=volatile)  # expect-not: GL001
    return x
