"""Recall case: forwards written as ``self.infer(x)`` and ``self._forward(...)``.

The trainer's ``validate`` puts the model in eval mode and runs it through
its own ``infer`` method; the model's ``test`` method runs itself through
``self._forward``. Both record graphs that nothing uses.
"""

import torch.nn as nn


class Detector(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def _forward(self, images):
        return self.head(self.backbone(images))

    def forward(self, images):
        return self._forward(images)

    def test(self, loader):
        self.eval()
        scores = []
        for images, _ in loader:
            scores.append(self._forward(images).sigmoid().max().item())  # expect: GL101
        return scores


class Trainer:
    def __init__(self, model):
        self.model = model

    def infer(self, images):
        return self.model(images)

    def validate(self, loader):
        self.model.eval()
        hits = 0
        for images, targets in loader:
            hits += (self.infer(images).argmax(1) == targets).sum().item()  # expect: GL101
        return hits
