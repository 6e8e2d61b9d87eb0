"""Recall case: 0-dim values the dataflow shows through a moved criterion and casts.

A script builds ``crit = nn.MSELoss()`` and, when a GPU is asked for, rebinds
it to ``crit.cuda()``: every binding is the same loss module, whose output is
0-dim. ``torch.sum(mask[:, 0]).int()`` counts rows: an integer cast keeps the
0-dim shape. ``err.data.cpu()[0]`` indexes the 0-dim tensor after moving it.
Each raises IndexError today. The batch-shaped reads (``pred.data.cpu()[0]``, a
row of the forward's output) stay, and so does ``int(n.data.cpu()[0])`` of a
receiver the file does not show to be 0-dim (a one-element count works today).
"""

import torch
import torch.nn as nn

crit = nn.MSELoss()
if torch.cuda.is_available():
    crit = crit.cuda()


def epoch(net, opt, loader, mask):
    running = 0
    n_valid = torch.sum(mask[:, 0]).int().data[0]  # expect: GL003:15
    for x, y in loader:
        opt.zero_grad()
        pred = net(x)
        err = crit(pred, y)
        err.backward()
        opt.step()
        running += err.data[0]  # expect: GL003:20
        print(err.data.cpu()[0])  # expect: GL003:15
        first = pred.data.cpu()[0]  # expect-not: GL003
    return running / n_valid, first


def expanded(dist):
    # `n` is a one-element count (`Variable(torch.Tensor([n]))`): its element works today
    return int(dist.n.data.cpu()[0])  # expect-not: GL003
