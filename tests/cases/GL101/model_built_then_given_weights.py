"""Recall case: modules built in the evaluating function and then given
weights, loaded from a checkpoint or by a helper the model is handed to, or
trained in the same function: each is a trained model run in eval mode with
gradients on.
"""

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


def restore(model, path):
    model.load_state_dict(torch.load(path))


def evaluate_checkpoint(loader, path):
    model = Classifier()
    model.load_state_dict(torch.load(path))
    model.eval()
    return [model(x).argmax(1).tolist() for x in loader]  # expect: GL101:13


def evaluate_restored(loader, path):
    model = Classifier().eval()
    restore(model, path)
    return [model(x).argmax(1).tolist() for x in loader]  # expect: GL101:13


def fit_then_score(train, test, opt_cls):
    model = Classifier()
    opt = opt_cls(model.parameters())
    for x, y in train:
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
    return [model(x).max().item() for x, _ in test]  # expect: GL101:13
