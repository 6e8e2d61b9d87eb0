"""Shape of the recall cause `wrapped-pretrained-features-extended-per-batch` (benchmarks/recall/first-sight-20.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A project module wraps a pretrained backbone that its constructor puts in
eval mode; an encoder class runs it over a data loader with gradients on and
extends a list with each batch's output rows, so every batch's graph stays
referenced until the features are stacked at the end.
"""
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        trunk = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8)).eval()
        self.op = nn.Sequential(trunk, nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return self.op(x)


class Encoder:
    def __init__(self):
        self.net = Backbone()

    def encode_all(self, loader):
        rows, names = [], []
        for images, batch_names in loader:
            out = self.net(images)  # expect: GL101
            rows.extend(out)  # expect: GL301
            names.extend(batch_names)
        feats = torch.stack(rows).squeeze()
        return dict(zip(names, feats.detach().numpy()))
