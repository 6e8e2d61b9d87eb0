"""Precision case: an FID feature extractor whose constructor freezes every parameter.

``InceptionFeatures`` sets ``p.requires_grad = requires_grad`` for each of its
parameters, ``False`` unless the caller asks otherwise; the evaluation loop
feeds it images that carry no graph, so its forwards record nothing. The
extractor built with ``requires_grad=True`` is a trainable model again, and the
loop over it is reported.
"""

import torch
from torch import nn


class InceptionFeatures(nn.Module):
    def __init__(self, dims, resize=True, requires_grad=False):
        super().__init__()
        self.resize = resize
        self.blocks = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, dims))
        for param in self.parameters():
            param.requires_grad = requires_grad

    def forward(self, x):
        if self.resize:
            x = nn.functional.interpolate(x, size=(299, 299), mode="bilinear")
        return self.blocks(x)


def activations(loader, dims, device):
    extractor = InceptionFeatures(dims).to(device)
    extractor.eval()
    feats = []
    for images in loader:
        feats.append(extractor(images.to(device)).cpu())  # expect-not: GL101
    return torch.cat(feats)


def tuned_activations(loader, dims, device):
    extractor = InceptionFeatures(dims, True, requires_grad=True).to(device)
    extractor.eval()
    feats = []
    for images in loader:
        feats.append(extractor(images.to(device)).cpu())  # expect: GL101:22
    return torch.cat(feats)
