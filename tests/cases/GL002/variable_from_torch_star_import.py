"""Recall case: ``Variable(x)`` where ``Variable`` comes from ``from torch.autograd import *``.

The wrapper detaches its argument today, as it does when imported by name.
"""

import torch
from torch.autograd import *


def train_step(model, x, y, optimizer):
    out = model(Variable(x))  # expect: GL002
    loss = torch.nn.functional.mse_loss(out, Variable(y))  # expect: GL002
    loss.backward()
    optimizer.step()
