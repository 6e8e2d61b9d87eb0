"""Precision case (issue 26), with its recall twin: a loss class of the file returns what
its ``forward`` (or ``__call__``) returns, whatever the name it is held under.

``SampleLoss.__call__`` returns one loss per sample (``reduction="none"``):
``per_sample.data[0]`` reads the first sample's loss, which works on any
torch, though the callee is named ``sample_loss``. ``MeanFocalLoss.forward``
reduces with ``.mean()``: its output is 0-dim and ``focal.data[0]`` raises
IndexError, though a module's output is otherwise taken to keep a batch.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SampleLoss:
    def __call__(self, logits, target):
        return F.cross_entropy(logits, target, reduction="none")


class MeanFocalLoss(nn.Module):
    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target, reduction="none")
        return ((1 - torch.exp(-ce)) ** 2 * ce).mean()


def first_losses(model, x, y):
    sample_loss = SampleLoss()
    per_sample = sample_loss(model(x), y)
    worst = per_sample.data[0]  # expect-not: GL003
    mean_focal = MeanFocalLoss()
    focal = mean_focal(model(x), y)
    first = focal.data[0]  # expect: GL003:13
    return worst, first
