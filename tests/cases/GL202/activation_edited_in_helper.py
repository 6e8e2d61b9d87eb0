"""Recall case: a helper edits, through ``.data``, a network output its caller passes in.

The generator ends in ``tanh``, which saved its output for backward. The helper
shifts the output to [0, 1], normalises each channel and bounds each image's
perturbation, all through ``.data`` (on the whole tensor, a channel slice, and a
view picked by loop counters): the loss backward then uses the edited values as
if ``tanh`` had produced them, silently.
"""

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.body = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, z):
        return torch.tanh(self.body(z))


def to_unit_range(perturbation, mean, std, budget):
    perturbation.data.add_(1.0).mul_(0.5)  # expect-preview: GL202:5
    for channel in range(perturbation.size(1)):
        perturbation.data[:, channel] = (perturbation.data[:, channel] - mean[channel]) / std[channel]  # expect-preview: GL202:9
    for n in range(perturbation.size(0)):
        for channel in range(perturbation.size(1)):
            peak = perturbation[n, channel].data.abs().max()
            perturbation[n, channel].data *= min(1.0, budget / float(peak))  # expect-preview: GL202:13
    return perturbation


def attack_step(generator, classifier, images, targets, optimizer, mean, std):
    optimizer.zero_grad()
    perturbation = to_unit_range(generator(images), mean, std, budget=10 / 255)
    loss = -nn.functional.cross_entropy(classifier(images + perturbation), targets)
    loss.backward()
    optimizer.step()
    return loss.item()
