"""Precision case (first-sight batch 12): an export script runs the eager model
once on a made-up input and hands the output to a comparing helper of the same
file, which only asserts closeness and prints the largest difference
(``(a - b).abs().max()``). The inputs are made up and the output only checked,
through the helper: a self-check, silent in the default tier, reported by the
preview tier.

Recall counterparts: ``self_check_helper_keeps_output.py``.
"""

import torch
import torchvision.models as models

import exporter


def compare(name, expected, actual):
    print(name, "max diff:", (expected - actual).abs().max().item())
    torch.testing.assert_close(expected, actual, rtol=1e-2, atol=1e-2)


model = models.resnet18().eval().cuda()
x = torch.randn(1, 3, 224, 224).cuda().half()
exported = exporter.export(model, x)
compare("resnet18", model(x), exported(x))  # expect-preview: GL101:21
