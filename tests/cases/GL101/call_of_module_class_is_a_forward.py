"""Precision case: ``__call__`` of an ``nn.Module`` subclass, and of a class that may be one.

``Wrapped`` derives from ``nn.Module`` and overrides ``__call__``: it is the
module's forward, whose outputs the caller's graph composes. ``Adapter``'s base
comes from another package and its ``__init__`` runs the base's ``__init__``:
whether it is a module is unknown, so its ``__call__`` is left alone too.
``Runner`` is surely no module, but nothing puts its model in eval mode.
"""

import torch
import torch.nn as nn
from adapters import BaseAdapter


class Wrapped(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.backbone.eval()

    def __call__(self, x):
        return self.backbone(x)  # expect-not: GL101


class Adapter(BaseAdapter):
    def __init__(self, weight):
        super().__init__()
        self.net = torch.jit.load(weight)
        self.net.eval()

    def __call__(self, x):
        return self.net(x).softmax(-1)  # expect-not: GL101


class Runner:
    def __init__(self, weight):
        self.net = torch.jit.load(weight)

    def __call__(self, x):
        return self.net(x).softmax(-1).tolist()  # expect-not: GL101
