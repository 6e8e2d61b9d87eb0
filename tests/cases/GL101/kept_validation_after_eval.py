"""Recall case (kept): a validation loop after ``model.eval()`` without ``no_grad``.

The plain shape the rule was built for, and a method form of it on a trainer.
"""

import torch.nn.functional as F


def validate(model, val_loader):
    model.eval()
    total = 0.0
    for x, y in val_loader:
        logits = model(x)  # expect: GL101:18
        total += F.cross_entropy(logits, y).item()
    model.train()
    return total / len(val_loader)


class Trainer:
    def __init__(self, model):
        self.model = model

    def evaluate(self, loader):
        self.model.eval()
        correct = 0
        for x, y in loader:
            correct += (self.model(x).argmax(1) == y).sum().item()  # expect: GL101:25
        return correct / len(loader.dataset)
