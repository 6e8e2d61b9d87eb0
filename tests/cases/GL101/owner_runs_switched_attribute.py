"""Recall case: a continual-learning wrapper keeps its backbone as `self.net`
and its `forward` returns `self.net(x)`; the evaluation switches only the
backbone (`model.net.eval()`) and then calls the wrapper on every test batch
with gradients on, so each call is an eval-mode forward of `model.net` that
records a graph nobody wants.
"""

import torch
from torch import nn


class ContinualModel(nn.Module):
    def __init__(self, backbone: nn.Module, loss: nn.Module):
        super().__init__()
        self.net = backbone
        self.loss = loss

    def forward(self, x):
        return self.net(x)


def evaluate(model: ContinualModel, loaders):
    status = model.net.training
    model.net.eval()
    accs = []
    for loader in loaders:
        correct = total = 0
        for inputs, labels in loader:
            outputs = model(inputs)  # expect: GL101:23
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.shape[0]
        accs.append(correct / total)
    model.net.train(status)
    return accs
