"""Recall case: ``volatile=`` handed to helpers of the file that pass their
``**kwargs`` on to ``Variable(...)`` whole: a function's ``make_var(bat,
volatile=True)`` and a trainer method's ``self.to_device(x, volatile=not
is_train)``. The flag lands in ``Variable`` and is ignored there, so the
evaluation forwards still record graphs.
"""

import torch
from torch.autograd import Variable


def make_var(val, cuda=False, **kwargs):
    var = Variable(val, **kwargs)
    return var.cuda() if cuda else var


def make_plain(val, requires_grad=False, **kwargs):
    return Variable(val, requires_grad=requires_grad)


def rollout(model, batches):
    model.eval()
    costs = [model(make_var(b, volatile=True)).data.cpu() for b in batches]  # expect: GL001:32
    plain = [model(make_plain(b, volatile=True)) for b in batches]  # expect-not: GL001
    return torch.cat(costs), plain


class Trainer:
    def __init__(self, model, loss_f):
        self.model = model
        self.loss_f = loss_f

    def to_device(self, t, **kwargs):
        return Variable(t.cuda(), **kwargs)

    def iteration(self, data, is_train):
        x, y = data
        x = self.to_device(x, volatile=not is_train)  # expect: GL001:31
        y = self.to_device(y, volatile=False)  # expect-not: GL001
        return self.loss_f(self.model(x), y)
