"""Recall case: ``Variable`` comes from ``from torch.autograd import *``.

Nothing in the file binds ``Variable`` by name, but the star import of
``torch.autograd`` does (its ``__all__`` lists it): both wrappers are torch's.
"""

import torch
from torch.autograd import *


def translate(decoder, seq, beam):
    seq = Variable(seq, volatile=True)  # expect: GL001
    for _ in range(beam):
        seq = decoder(seq)
    return seq


def train_step(model, x, y, optimizer):
    out = model(Variable(x))
    loss = torch.nn.functional.mse_loss(out, Variable(y))
    loss.backward()
    optimizer.step()
