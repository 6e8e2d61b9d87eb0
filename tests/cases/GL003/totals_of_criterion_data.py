"""Recall case: totals of 0-dim losses read with ``[0]``.

``total += len(data) * nn.CrossEntropyLoss()(out, y).data`` adds numbers
times 0-dim tensors to a total started at 0: the total is 0-dim and
``total[0]`` raises IndexError today. The same in a training loop, where the
read follows ``total += loss.data`` in the same iteration and the total is
reset after it. Twins that stay silent: a total started as a 1-dim tensor
(``total[0]`` is its element, which works), one that adds a per-sample loss
(``reduction="none"``), and one that adds the forward's output.
"""

import torch
import torch.nn as nn

criterion = nn.CrossEntropyLoss()
per_sample = nn.CrossEntropyLoss(reduction="none")


def evaluate(model, batches):
    total = 0
    for data, targets in batches:
        out = model(data)
        total += len(data) * nn.CrossEntropyLoss()(out, targets).data
    return total[0] / len(batches)  # expect: GL003:12


def train(model, batches, opt):
    total = 0
    for i, (data, targets) in enumerate(batches):
        opt.zero_grad()
        loss = criterion(model(data), targets)
        loss.backward()
        opt.step()
        total += loss.data
        if i % 10 == 0:
            print(total[0] / 10)  # expect: GL003:19
            total = 0


def kept_as_tensors(model, batches):
    ones = torch.zeros(1)
    each = 0
    outs = 0
    for data, targets in batches:
        out = model(data)
        ones += criterion(out, targets).data
        each += per_sample(out, targets).data
        outs += out.data
    return ones[0], each[0], outs[0]  # expect-not: GL003
