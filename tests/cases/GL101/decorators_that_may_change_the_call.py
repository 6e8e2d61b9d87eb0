"""Precision case: decorators of the file that do not hand back the function
they decorate (a wrapper that runs it under `no_grad`, one that returns
something else on one path, one that rebinds its argument): grad mode inside
the methods is not proven on, and nothing is reported.
"""

import torch
from torch import nn


def guarded(fn):
    def run(*args):
        with torch.no_grad():
            return fn(*args)

    return run


def maybe_compiled(fn):
    if hasattr(torch, "compile"):
        return torch.compile(fn)
    return fn


def frozen(fn):
    fn = torch.inference_mode()(fn)
    return fn


class Classifier(nn.Module):
    def forward(self, x):
        return self.head(x)

    @guarded
    def accuracy(self, loader):
        self.eval()
        return [(self(x).argmax(1) == y).float().mean().item() for x, y in loader]  # expect-not: GL101

    @maybe_compiled
    def scores(self, loader):
        self.eval()
        return [self(x).max().item() for x, _ in loader]  # expect-not: GL101

    @frozen
    def logits(self, loader):
        self.eval()
        return [self(x).argmax(1).tolist() for x, _ in loader]  # expect-not: GL101
