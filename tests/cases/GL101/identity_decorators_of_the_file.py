"""Recall case: evaluation methods decorated by the file's own registry and
docstring factory, which hand back the very function they decorate: each
runs in its caller's grad mode, so the forwards after `eval()` record graphs.
"""

from torch import nn

EVALUATORS = {}


def register(fn):
    EVALUATORS[fn.__name__] = fn
    return fn


def documented(header):
    def add_doc(fn):
        fn.__doc__ = header
        return fn

    return add_doc


class Classifier(nn.Module):
    def forward(self, x):
        return self.head(x)

    @register
    def accuracy(self, loader):
        self.eval()
        return [(self(x).argmax(1) == y).float().mean().item() for x, y in loader]  # expect: GL101:18

    @documented("Mean loss on a loader.")
    def mean_loss(self, loader, criterion):
        self.eval()
        return sum(criterion(self(x), y).item() for x, y in loader) / len(loader)  # expect: GL101:30
