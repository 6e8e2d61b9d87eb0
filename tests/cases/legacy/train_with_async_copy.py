"""Recall case: a 2017 training script with ``x.cuda(async=True)`` holds other findings.

``async=True`` is a syntax error since Python 3.7; the rest of the file has
the 0.3-era bugs gradlint exists for, and they are reported too (what the
``async=`` line itself is reported as is not compared here).
"""

import torch
import torch.nn as nn
from torch.autograd import Variable


def train(model, loader, optimizer, epoch):
    criterion = nn.CrossEntropyLoss()
    model.train()
    for i, (input, target) in enumerate(loader):
        target = target.cuda(async=True)
        input_var = Variable(input)  # expect: GL002:21
        target_var = Variable(target)  # expect: GL002:22
        loss = criterion(model(input_var), target_var)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 10 == 0:
            print("Epoch %d [%d] loss %.4f" % (epoch, i, loss.data[0]))  # expect: GL003:58
