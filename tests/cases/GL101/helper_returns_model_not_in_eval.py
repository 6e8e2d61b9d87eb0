"""Precision case: functions that do not surely return their value in eval mode.

``get_train_model`` returns it after ``model.train()``, ``get_pair`` returns
another object than the one it switched, and ``get_if`` returns from a branch
the ``eval()`` may not have reached: their callers' models are not proven to be
in eval mode.
"""

from model import make_model


def get_train_model(conf):
    model = make_model(conf)
    model.eval()
    model.train()
    return model


def get_pair(conf):
    model = make_model(conf)
    model.eval()
    fresh = make_model(conf)
    return fresh


def get_if(conf):
    model = make_model(conf)
    if conf["eval"]:
        model.eval()
        return model
    return model


def run(conf, test_set):
    scores = []
    model = get_train_model(conf)
    other = get_pair(conf)
    third = get_if(conf)
    for mix, sources in test_set:
        scores.append(model(mix).mean().item())  # expect-not: GL101
        scores.append(other(mix).mean().item())  # expect-not: GL101
        scores.append(third(mix).mean().item())  # expect-not: GL101
    return scores
