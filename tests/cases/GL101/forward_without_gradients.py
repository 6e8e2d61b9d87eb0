"""Recall case: the twin of ``forward_needs_gradients.py`` whose renderer
computes no gradient in its forward (the normals come from a layer of their
own); the method that would call ``autograd.grad`` exists but the forward does
not reach it. The evaluation loop keeps a graph per batch for nothing, and the
default tier reports it.
"""

import torch
import torch.nn as nn


class ImplicitNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(3, 64), nn.Softplus(), nn.Linear(64, 1))
        self.normal = nn.Linear(3, 3)

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
        normals = self.implicit.normal(points)
        return self.color(torch.cat([points, normals], dim=-1))


def evaluate(loader, path):
    model = Renderer()
    model.load_state_dict(torch.load(path))
    model.eval()
    images = []
    for points in loader:
        images.append(model(points))  # expect: GL101:23
    return images
