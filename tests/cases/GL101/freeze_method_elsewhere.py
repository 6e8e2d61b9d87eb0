"""Recall case: a ``freeze()`` method elsewhere in the class must not hide ``to_onnx``.

``freeze`` is never called by ``to_onnx``; the export helper puts the model
in eval mode and runs it once with gradients enabled.
"""

import torch
import torch.nn as nn


class KeywordSpotter(nn.Module):
    def __init__(self, features, classes):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(features, 64, 3), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.out = nn.Linear(64, classes)

    def forward(self, x):
        return self.out(self.net(x))

    def freeze(self):
        for p in self.parameters():
            p.requires_grad = False

    def to_onnx(self, path, example):
        self.eval()
        reference = self(example)  # expect: GL101:21
        torch.onnx.export(self, (example,), path, opset_version=17)
        return reference.shape
