"""Recall case (first-sight recall batch 4, issue 26): a model put in eval mode
and then run through a wrapper that forwards to it (``DDP(model)``,
``FSDP(model)``, ``torch.compile(model)``): the wrapper's forward is the
model's, in eval mode, and records a graph all the same.

Precision counterparts: the wrapper's own ``train()`` trains the model it wraps
(the region ends there); a name rebound after it was wrapped is another object;
a callable the file cannot resolve (``Wrap(model)``) is no known wrapper.
"""

import torch
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP


def evaluate(loader):
    model = nn.Linear(4, 2)
    ddp = DDP(model.cuda())
    model.eval()
    return [ddp(x).sum().item() for x in loader]  # expect: GL101:13


def fit_then_score(model, loader, opt):
    sharded = FSDP(model)
    for x in loader:
        sharded(x).sum().backward()
        opt.step()
    model.eval()
    for x in loader:
        print(sharded(x).argmax(1).tolist())  # expect: GL101:15


def compiled(model, loader):
    fast = torch.compile(nn.DataParallel(model))
    model.eval()
    return sum(fast(x).sum().item() for x in loader)  # expect: GL101:16


def wrapper_trained_again(model, loader):
    sharded = FSDP(model)
    model.eval()
    sharded.train()
    for x in loader:
        print(sharded(x).sum().item())  # expect-not: GL101


def rebound_after_wrapping(model, loader):
    ddp = DDP(model)
    model = nn.Linear(4, 2)
    model.eval()
    return sum(ddp(x).sum().item() for x in loader)  # expect-not: GL101


def unknown_wrapper(model, loader, Wrap):
    wrapped = Wrap(model)
    model.eval()
    return sum(wrapped(x).sum().item() for x in loader)  # expect-not: GL101
