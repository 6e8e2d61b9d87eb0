"""Recall case: a loss module held on an attribute of a trainer and moved to a device.

``Processor.load_model`` builds ``self.objective = nn.CrossEntropyLoss().cuda(dev)``
(``.cuda()`` of a module returns the module itself) and ``train`` calls it:
every write of the attribute builds the same loss module, whose default
reduction gives a 0-dim tensor, so ``out.data[0]`` raises IndexError today
under a name that says nothing. Twins that stay silent: a criterion built with
``reduction="none"`` (one value per sample, its first element reads fine), an
attribute the file does not show the construction of, and one assigned a loss
module in one method and something else in another.
"""

import torch.nn as nn


def build_head():
    from heads import Head

    return Head()


class Processor:
    def __init__(self, dev):
        self.dev = dev
        self.head = build_head()

    def load_model(self, model):
        self.model = model.cuda(self.dev)
        self.objective = nn.CrossEntropyLoss().cuda(self.dev)
        self.per_item = nn.CrossEntropyLoss(reduction="none").cuda(self.dev)
        self.judge = nn.MSELoss().to(self.dev).eval()

    def reset(self):
        self.judge = build_head()

    def train(self, loader, opt):
        values = []
        for x, y in loader:
            pred = self.model(x)
            out = self.objective(pred, y)
            opt.zero_grad()
            out.backward()
            opt.step()
            first = out.data[0]  # expect: GL003:21
            values.append(first)
            each = self.per_item(pred, y)
            first_item = each.data[0]  # expect-not: GL003
            h = self.head(pred, y)
            first_head = h.data[0]  # expect-not: GL003
            j = self.judge(pred, y)
            first_judged = j.data[0]  # expect-not: GL003
        return values, first_item, first_head, first_judged
