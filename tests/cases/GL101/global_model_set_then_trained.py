"""Precision case: ``load()`` sets the module global ``model`` in eval mode,
but ``finetune()`` hands the same global to a trainer, which may put it back
in training mode before ``predict`` runs: the mode at the forward is unknown.
"""

import torch

from trainer import fit

model = None


def load(path):
    global model
    model = torch.load(path)
    model.eval()


def finetune(loader):
    fit(model, loader)


def predict(x):
    return model(x).tolist()  # expect-not: GL101
