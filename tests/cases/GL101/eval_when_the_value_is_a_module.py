"""Recall case (first-sight recall batch 28, d2l's ``evaluate_accuracy``): the
network is put in eval mode only when it is an ``nn.Module`` (or has ``eval``). Where the test holds,
every later forward runs in eval mode, under the test or not; where it fails, the
value is no module. The test batches' forwards record graphs nobody uses.

Not reported: an ``isinstance`` test of a class that is not a module, and a value
rebound after the switch.
"""

import torch
from torch import nn


def evaluate_accuracy(net, data_iter):
    if isinstance(net, torch.nn.Module):
        net.eval()
    correct, total = 0.0, 0
    for X, y in data_iter:
        correct += float((net(X).argmax(axis=1) == y).sum())  # expect: GL101:27
        total += y.numel()
    return correct / total


def evaluate_linear(net, data_iter):
    if isinstance(net, nn.Linear):
        net.eval()
    return [net(X).argmax(axis=1).tolist() for X in data_iter]  # expect: GL101:13


def evaluate_duck(net, data_iter):
    if hasattr(net, "eval"):
        net.eval()
    return [net(X).argmax(axis=1).tolist() for X in data_iter]  # expect: GL101:13


def evaluate_wrapped(net, data_iter):
    if isinstance(net, Wrapper):
        net.eval()
    return [net(X).argmax(axis=1).tolist() for X in data_iter]  # expect-not: GL101


def evaluate_rebound(net, spare, data_iter):
    if isinstance(net, nn.Module):
        net.eval()
    net = spare
    return [net(X).argmax(axis=1).tolist() for X in data_iter]  # expect-not: GL101


class Wrapper:
    def eval(self):
        return self
