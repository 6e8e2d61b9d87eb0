"""The receivers of tensor-method fixes, fed every kind of value the rules meet.

A fix that adds ``.detach()`` (GL301), ``.item()`` (GL003) or ``.requires_grad_()``
(GL302) calls a method only tensors (or modules) have. Each program here puts, at the
place such a fix would edit, a value of one kind: a module, a float, a list, a numpy
array, a string, a ``Future``, a dataclass, or a tensor that a later ``backward()``
uses. No safe fix may change what any of them does; a fix that calls a tensor method
on anything but a proven tensor would raise ``AttributeError`` or change a gradient.
"""

from __future__ import annotations

from typing import Dict, Iterator

from oracle.runner import Program

# What ``make(out)`` returns for each kind: ``out`` is a forward's output (a tensor with
# a graph), so that the value is computed where a loss would be.
KINDS: Dict[str, str] = {
    "module": "nn.Linear(4, 1)",
    "float": "float(out.sum())",
    "list": "[float(v) for v in out.flatten()]",
    "numpy": "numpy.asarray(out.detach())",
    "str": "f'{float(out.sum()):.3f}'",
    "future": "_done(float(out.sum()))",
    "dataclass": "Record(float(out.sum()))",
    "tensor-backward": "out.pow(2).mean()",
}

HEAD = """\
import dataclasses

import numpy
import torch
from torch import nn, randn

model = nn.Linear(4, 1)
batches = [randn(3, 4) for _ in range(3)]


@dataclasses.dataclass
class Record:
    loss: float


def _done(value):
    fut = torch.futures.Future()
    fut.set_result(value)
    return fut


def make(out):
    return {make}

"""

# GL301: what a callee named like a loss returns, kept across iterations. The tensor
# is backpropagated after the loop, through the store: its graph is wanted.
GL301_SITES: Dict[str, str] = {
    "append": """\
def evaluate(batches, criterion):
    losses = []
    for xb in batches:
        loss = criterion(model(xb))
        losses.append(loss)
    print(len(losses), type(losses[-1]).__name__)


def run():
    evaluate(batches, make)
    return model.weight.grad
""",
    "iadd": """\
def evaluate(batches, criterion):
    total = 0
    for xb in batches:
        loss = criterion(model(xb))
        total += loss
    print(type(total).__name__)


def run():
    evaluate(batches, make)
    return model.weight.grad
""",
    "backward-later": """\
def backprop_all(losses):
    if isinstance(losses[0], torch.Tensor):
        torch.stack(losses).sum().backward()


def evaluate(batches, criterion):
    losses = []
    for xb in batches:
        loss = criterion(model(xb))
        losses.append(loss)
    backprop_all(losses)
    print(len(losses))


def run():
    evaluate(batches, make)
    return model.weight.grad
""",
}

# GL003 (``.item()``) and GL302 (``.requires_grad_()``): the receiver is ``make``'s value.
OTHER_SITES: Dict[str, tuple] = {
    "data-index": ("GL003", """\
def run():
    value = make(model(batches[0]))
    first = value.data[0]
    print(first)
    return model.weight.grad
"""),
    "requires-grad-attribute": ("GL302", """\
def run():
    model_out = make(model(batches[0]))
    model_out.requires_grad = False
    print(getattr(model_out, "requires_grad", "unset"))
    return model.weight.grad
"""),
}


def nontensor_family() -> Iterator[Program]:
    for kind, expr in KINDS.items():
        head = HEAD.format(make=expr)
        for site, body in GL301_SITES.items():
            yield Program(f"nontensor-gl301-{site}-{kind}", "GL301", f"receiver={kind} site={site}", head + "\n" + body)
        for site, (rule, body) in OTHER_SITES.items():
            yield Program(f"nontensor-{rule.lower()}-{site}-{kind}", rule, f"receiver={kind} site={site}", head + "\n" + body)
