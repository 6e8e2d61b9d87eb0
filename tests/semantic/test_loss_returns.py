"""Classes whose call returns a 0-dim tensor, summarised for other files (``semantic.loss_returns``)."""

from __future__ import annotations

import textwrap

from gradlint.engine import lint_source
from gradlint.options import LintSettings
from gradlint.semantic import project

LOSSES = textwrap.dedent(
    """\
    import torch.nn as nn
    import torch.nn.functional as F


    class IoULoss(nn.Module):
        def __init__(self, size_average=True):
            super().__init__()
            self.size_average = size_average

        def forward(self, input, target):
            input = F.sigmoid(input)
            intersection = (input * target).sum()
            union = ((input + target) - (input * target)).sum()
            iou = intersection / union
            iou_dual = input.size(0) - iou
            if self.size_average:
                iou_dual = iou_dual / input.size(0)
            return iou_dual


    class PerSampleLoss(nn.Module):
        def forward(self, x, y):
            return (x - y).abs().mean(1)


    class UnpackedLoss(nn.Module):
        def forward(self, x):
            a, b = x.sum(), x
            return b


    class ReshapedLoss(nn.Module):
        def forward(self, x):
            loss = x.sum()
            loss.unsqueeze_(0)
            return loss


    class StartsAtZero(nn.Module):
        def forward(self, xs):
            total = 0.0
            for x in xs:
                total += x.sum()
            return total


    class MixedTargets(nn.Module):
        def forward(self, x, y):
            loss = x.sum()
            loss = self.last = y
            return loss


    class Criterion:
        def __call__(self, out, y):
            return ((out - y) ** 2).mean() * len(y)

        def forward(self, out, y):
            return out - y


    class NotAModule:
        def forward(self, x):
            return x.sum()
    """
)


def test_classes_whose_call_returns_a_reduction_are_summarised():
    found = project.summarize("pkg/losses.py", LOSSES)
    assert found is not None and project.valid(found)
    # a reduction along a dimension, a name bound by unpacking, one reshaped in place,
    # one that starts as a Python number, one also assigned with another target:
    # nothing proven; ``Criterion``'s call runs
    # ``__call__``, not its ``forward``
    assert found["zero_dim_calls"] == {"IoULoss": "forward", "Criterion": "__call__", "NotAModule": "forward"}
    assert project.valid({**found, "zero_dim_calls": {"IoULoss": "predict"}}) is False


TRAIN = textwrap.dedent(
    """\
    import torch.nn as nn
    from losses import IoULoss, NotAModule, PerSampleLoss

    criterion = nn.BCEWithLogitsLoss()
    if use_iou:
        criterion = IoULoss()


    def train(net, loader, meter, other):
        for x, y in loader:
            loss = criterion(net(x), y)
            loss.backward()
            meter.update(loss.data[0], x.size(0))
            other.update(PerSampleLoss()(net(x), y).data[0])
            other.update(NotAModule()(net(x), y).data[0])
    """
)


def test_gl003_takes_the_output_of_a_loss_class_of_another_file_for_0_dim(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    sources = []
    for name, text in (("losses.py", LOSSES), ("train.py", TRAIN)):
        (root / name).write_text(text)
        sources.append((str(root / name), text))
    path = str(root / "train.py")
    settings = LintSettings(frozenset({"GL003"}), index=project.build(sources))
    found = lint_source(TRAIN, path, settings).findings
    # torch's loss or the project's IoULoss, both 0-dim; a loss per sample and the
    # forward of a class that is no module (its call never runs ``forward``) prove nothing
    assert [(f.code, f.start) for f in found] == [("GL003", (13, 21))]
    assert found[0].fix is not None and found[0].fix.applicability == "unsafe"
    # without the index, what IoULoss returns is unknown
    assert lint_source(TRAIN, path, LintSettings(frozenset({"GL003"}))).findings == []
