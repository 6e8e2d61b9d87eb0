"""Recall case: the model comes from a function of the file that returns it in eval mode.

``get_model`` loads the checkpoint, calls ``model.eval()`` and returns the
model as the last statement of its body: ``model = get_model(conf)`` binds an
eval-mode model, and ``main`` runs it over the whole test set with gradients
on.
"""

import torch

from model import make_model


def get_model(conf):
    model = make_model(conf)
    model.load_state_dict(torch.load(conf["path"]))
    model.eval()
    return model


def main(conf, test_set):
    model = get_model(conf)
    scores = []
    for mix, sources in test_set:
        estimate = model(mix[None])  # expect: GL101:20
        scores.append(((estimate - sources) ** 2).mean().item())
    return sum(scores) / len(scores)
