"""Recall case (first-sight recall batch 11, trellisnet's word-level evaluate): the
model is put in eval mode, then each chunk runs through ``net =
nn.DataParallel(model) if batch_size > 10 else model`` with gradients on.

Both branches run ``model``'s own forward, wrapped or not, so ``net(x)`` is an
eval-mode forward of ``model`` whichever branch is taken.

Silent twins: a conditional whose other branch is another module (``ema``, whose
mode nothing shows), and one whose wrapper is trained before the forward.
"""

import torch.nn as nn


def evaluate(model, chunks, criterion, batch_size):
    model.eval()
    total = 0.0
    for data, targets in chunks:
        net = nn.DataParallel(model) if batch_size > 10 else model
        output = net(data)  # expect: GL101:18
        total += criterion(output, targets).item()
    return total


def evaluate_either(model, ema, chunks, use_ema):
    model.eval()
    scores = []
    for data in chunks:
        net = nn.DataParallel(ema) if use_ema else model
        scores.append(net(data).argmax(-1).tolist())  # expect-not: GL101
    return scores


def evaluate_then_tune(model, chunks, optimizer):
    model.eval()
    for data in chunks:
        net = nn.parallel.DistributedDataParallel(model) if optimizer else model.cuda()
        net.train()
        print(net(data).sum().item())  # expect-not: GL101
