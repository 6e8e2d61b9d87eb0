"""Recall case: detectors of the file wrap the trained network (`Energy(model)`
keeps it as `self.model` and runs it in `forward`; `Scorer` does so in
`__call__`); with `model` in eval mode, made before or after the wrapper,
the scoring loops call the wrappers with gradients on, so each call is an
eval-mode forward of `model` whose graph nothing wants.
"""

import torch
from torch import nn


class Energy(nn.Module):
    def __init__(self, model, temperature=1.0):
        super().__init__()
        self.temperature = temperature
        self.model = model

    def forward(self, x):
        return -self.temperature * torch.logsumexp(self.model(x) / self.temperature, dim=1)


class Scorer:
    def __init__(self, net):
        self.net = net

    def __call__(self, x):
        return self.net(x).softmax(-1).max(-1).values


def energy_scores(model, loader):
    energy = Energy(model)
    model.eval()
    scores = []
    for x, _ in loader:
        scores += energy(x).tolist()  # expect: GL101:19
    return scores


def confidences(model, loader):
    model.eval()
    confidence = Scorer(model)
    return [confidence(x).tolist() for x, _ in loader]  # expect: GL101:13
