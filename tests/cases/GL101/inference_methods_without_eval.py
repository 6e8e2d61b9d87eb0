"""Recall case: ``_validate``, ``test`` and ``predict`` with no ``.eval()`` of their own.

A trainer's inference methods: their forwards end in printing, in
``.data`` handed to NumPy and in metrics, so no graph leaves them, yet each
forward records one.
"""

import torch


class Trainer:
    def __init__(self, model, val_loader, test_loader):
        self.model = model
        self.val_loader = val_loader
        self.test_loader = test_loader

    def _validate(self, epoch):
        for x, y in self.val_loader:
            logits = self.model(x)  # expect-preview: GL101:22
            print(epoch, (logits.argmax(1) == y).float().mean())

    def test(self):
        scores = [self.model(x).data.numpy() for x, _ in self.test_loader]  # expect-preview: GL101:19
        return sum(s.mean() for s in scores) / len(scores)

    def predict(self, images):
        return torch.softmax(self.model(images), dim=1).argmax(1).tolist()  # expect-preview: GL101:30
