"""Recall case: a deployed scoring script of a cloud service defines
``init()``, which loads the model into a module global and puts it in eval
mode, and ``run(raw)``, which the service calls for each request. The global
is ``None`` until ``init()`` runs, so every forward of it runs in eval mode,
with gradients on.
"""

import json

import torch

model = None


def init():
    global model
    model = torch.load("model.pt", map_location="cpu")
    model.eval()


def run(raw):
    batch = torch.tensor(json.loads(raw)["data"])
    output = model(batch)  # expect: GL101:14
    return output.argmax(1).tolist()
