"""Recall case: a 2017 validation function with ``async=True`` and ``volatile=True``.

The legacy copy keyword makes the file unparsable as written; the volatile
flag, the ``.data[0]`` read and the evaluation without ``no_grad`` are
still reported.
"""

import torch
from torch.autograd import Variable


def validate(model, criterion, val_loader):
    model.eval()
    total = 0.0
    for input, target in val_loader:
        target = target.cuda(async=True)
        input_var = Variable(input, volatile=True)  # expect: GL001:21
        output = model(input_var)  # expect: GL101:18
        loss = criterion(output, Variable(target))  # expect: GL002:34
        total += loss.data[0]  # expect: GL003:18
    return total / len(val_loader)
