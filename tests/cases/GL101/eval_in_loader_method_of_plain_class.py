"""Recall case: a predictor class loads its model in eval mode in one method and
runs it in ``__call__``.

``Detector`` is no ``nn.Module`` (its ``__init__`` never runs a base
``__init__``): ``_load_model`` is the only method that assigns
``self._model`` and puts it in eval mode, no method trains it, so every
frame ``__call__`` runs records a graph for nothing. Precision: ``Tuner``
trains its model in ``fit``, so ``predict`` may run it in train mode.
"""

import torch


class Detector:
    def __init__(self, weight):
        self._model = None
        self._load_model(weight)

    def _load_model(self, weight):
        self._model = torch.jit.load(weight, map_location="cpu")
        self._model.eval()

    def __call__(self, frame):
        inputs = torch.from_numpy(frame).float() / 255.0
        outputs = self._model(inputs[None])[0]  # expect: GL101:19
        return outputs.cpu().numpy()


class Tuner:
    def __init__(self, weight):
        self.model = torch.jit.load(weight)
        self.model.eval()

    def fit(self, batches, optimizer):
        self.model.train()
        for x, y in batches:
            loss = (self.model(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()

    def predict(self, frame):
        outputs = self.model(torch.from_numpy(frame))  # expect-not: GL101
        return outputs.cpu().numpy()
