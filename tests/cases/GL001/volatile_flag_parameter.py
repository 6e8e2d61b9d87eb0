"""Recall case: ``volatile=True`` passed to the file's own helper that builds the Variables.

``as_inputs`` and ``to_var`` take the flag as a parameter and hand it on to
``Variable(..., volatile=...)``: the flag is known only at run time there, and
the true value it takes comes from the evaluation loop's call, which is where
the graph starts being recorded today. ``load`` hands its flag to a function of
another module, which may be anything, and ``volatile=False`` was a no-op even
in 0.3: neither is reported at the caller.
"""

from torch.autograd import Variable

from .io import read_tensor


def to_var(x, volatile=False):
    return Variable(x, volatile=volatile)  # expect: GL001


def as_inputs(batch, volatile=False):
    return to_var(batch[0], volatile=volatile), Variable(batch[1], volatile=volatile)  # expect: GL001


def load(path, volatile=False):
    return read_tensor(path, volatile=volatile)


def evaluate(net, loader, paths):
    hits = 0
    for batch in loader:
        x, y = as_inputs(batch, volatile=True)  # expect: GL001:33
        hits += (net(x).argmax(1) == y).sum().item()
    for path in paths:
        net(load(path, volatile=True))  # expect-not: GL001
    x, y = as_inputs(next(iter(loader)), volatile=False)  # expect-not: GL001
    return hits
