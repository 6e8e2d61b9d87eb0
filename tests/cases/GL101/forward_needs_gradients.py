"""Precision case (first-sight batch 12): an implicit-surface renderer whose
``forward`` computes surface normals with ``torch.autograd.grad`` of the signed
distance, through a method of its submodule (``self.implicit.gradient(x)``
calls ``x.requires_grad_(True)`` and ``torch.autograd.grad``). Its evaluation
loop runs in eval mode with grad on because it must: under ``no_grad`` the
normals raise. The premise "the forward does not need grad" fails, so neither
tier reports it (and no fix is offered).

Recall counterpart: ``forward_without_gradients.py``.
"""

import torch
import torch.nn as nn


class ImplicitNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(3, 64), nn.Softplus(), nn.Linear(64, 1))

    def forward(self, x):
        return self.layers(x)

    def gradient(self, x):
        x.requires_grad_(True)
        y = self.forward(x)
        return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


class Renderer(nn.Module):
    def __init__(self):
        super().__init__()
        self.implicit = ImplicitNetwork()
        self.color = nn.Linear(6, 3)

    def forward(self, points):
        normals = self.implicit.gradient(points)
        return self.color(torch.cat([points, normals], dim=-1))


def evaluate(loader, path):
    model = Renderer()
    model.load_state_dict(torch.load(path))
    model.eval()
    images = []
    for points in loader:
        images.append(model(points).detach())  # expect-not: GL101
    return images
