"""Recall case: a reporter keeps a ``clone()`` of every reported tensor.

The copy helper means to store the reported value without its graph, but
``clone()`` is recorded by autograd: each reported loss keeps its step's graph
in the reporter's observation, and from there in every summary built on it.
The copy is made in a helper whose only caller stores it on the reporter.
"""

import torch


def _copy_value(value):
    if isinstance(value, torch.Tensor):
        return value.clone()  # expect-preview: GL301:16
    return value


class Reporter:
    def __init__(self):
        self.observation = {}

    def report(self, values, prefix=""):
        values = {k: _copy_value(v) for k, v in values.items()}
        for key, value in values.items():
            self.observation[prefix + key] = value
