"""Recall case (issue 26, batch 12's text classifier): ``load_model()`` puts the
model in eval mode and returns it in a tuple; the caller unpacks it and hands it
to ``run_model``, which classifies a batch with gradients on. The index of a
prediction (``idx_to_tag[out[i].argmax()]``) selects a tag and keeps no graph.

Silent twins: a loader that trains the model after its ``eval()``; a name
unpacked from a position that does not hold the eval-mode model.
"""

import torch
import torch.nn as nn


def load_model(path):
    model, vocab = nn.Linear(8, 4), torch.load(path + ".vocab")
    model.eval()
    model.load_state_dict(torch.load(path))
    return model, vocab, ["a", "b", "c", "d"]


def run_model(model, idx_to_tag, data):
    result = model(torch.stack([x for _, x in data]))  # expect: GL101:14
    for i in range(len(data)):
        data[i] = (data[i][0], idx_to_tag[result[i].argmax()])
    return data


def predict(path, batches):
    model, vocab, idx_to_tag = load_model(path)
    out = []
    for data in batches:
        out.extend(run_model(model, idx_to_tag, data))
    return out


def load_then_train(path):
    model = nn.Linear(8, 4)
    model.eval()
    model.train()
    return model, ["a", "b"]


def run_trained(model, idx_to_tag, data):
    result = model(data)  # expect-not: GL101
    return [idx_to_tag[r.argmax()] for r in result]


def predict_trained(path, data):
    model, idx_to_tag = load_then_train(path)
    return run_trained(model, idx_to_tag, data)


def run_other(model, data):
    result = model(data)  # expect-not: GL101
    return [r.argmax().item() for r in result]


def predict_other(path, data):
    vocab, model, idx_to_tag = load_model(path)
    return run_other(model, data)
