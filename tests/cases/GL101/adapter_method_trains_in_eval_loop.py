"""Recall case (kept): a test-time adapter steps an optimizer inside the evaluation
loop through a method of a class of the file (``adapter.adapt(x)``).

The forward after the adaptation still records a graph for nothing and is
reported; the guard around the loop would break the adaptation, so its fix is
unsafe (tests/test_fix_conditions.py), while the forwards inside the method,
which train, are not reported. Code named for inference without an ``eval()``
that runs such a method is not taken for inference (preview tier).
"""

from typing import Optional

import torch


class Adapter:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    def adapt(self, x):
        loss = self.model(x).softmax(1).log().mean().neg()  # expect-not: GL101
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


def evaluate(model, adapter: Optional[Adapter], loader):
    model.eval()
    correct = 0
    for x, y in loader:
        if adapter is not None:
            adapter.adapt(x)
        correct += (model(x).argmax(1) == y).sum().item()  # expect: GL101:21
    return correct


def predict(model, adapter: Adapter, loader):
    # named for inference, no eval(): the adaptation it runs says it is not
    # inference only, so the preview tier does not take it for inference code
    predictions = []
    for x in loader:
        adapter.adapt(x)
        predictions.append(model(x).argmax(1).tolist())  # expect-not: GL101
    return predictions


def predict_plain(model, loader):
    predictions = []
    for x in loader:
        predictions.append(model(x).argmax(1).tolist())  # expect-preview: GL101
    return predictions
