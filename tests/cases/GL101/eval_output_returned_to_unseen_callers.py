"""Precision case (first-sight batch 4): outputs of an eval-mode module returned to
callers this file does not show. A latent normaliser runs a BatchNorm in eval
mode for its running statistics inside a differentiable encoder, and hands the
result on: the caller may well backpropagate through it. With the callers
unknown, the premise "the graph is wanted by nothing" is not proven, so the
default tier is silent; the preview tier keeps its guess that nothing in the
file computes gradients.

Recall counterpart: the same function whose only caller in a script prints
what it gets back.
"""

import torch
from torch import nn


class LatentNormalizer(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels, affine=False, track_running_stats=True)

    def normalize(self, z):
        self.bn.eval()
        return self.bn(z)  # expect-preview: GL101:16

    def forward(self, z):
        return self.normalize(z)


def run_reference(model, batch):
    model.eval()
    return model(batch)  # expect-preview: GL101:12


def scores_for_report(scorer, images):
    scorer.eval()
    return scorer(images)  # expect: GL101:12


def print_report(scorer, images):
    print(scores_for_report(scorer, images).softmax(-1).tolist())
