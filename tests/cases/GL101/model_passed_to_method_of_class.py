"""Recall case: the eval-mode model handed to a method of the same class.

``batch_predict`` puts ``self.model`` in eval mode and passes it to
``self._predict``, whose parameter ``model`` it binds: the forward there runs
with gradients on, once per batch. Precision: ``self._fit`` backpropagates
through what it computes, and ``self._swap`` rebinds its parameter before the
forward, so what it runs is not the model passed.
"""

import torch


class Predictor:
    def __init__(self, model, others):
        self.model = model
        self.others = others

    def batch_predict(self, batches):
        self.model.eval()
        out = []
        for batch in batches:
            preds = self._predict(self.model, batch)  # expect: GL101:21
            out.append(preds.argmax(-1).tolist())
        return out

    def _predict(self, model, batch):
        inputs = torch.as_tensor(batch)
        return model(inputs)

    def fit_frozen_norms(self, batches):
        self.model.eval()
        for batch in batches:
            self._fit(self.model, batch)  # expect-not: GL101

    def _fit(self, model, batch):
        loss = model(torch.as_tensor(batch)).pow(2).mean()
        loss.backward()

    def swapped(self, batches):
        self.model.eval()
        out = []
        for batch in batches:
            out.append(self._swap(self.model, batch).tolist())  # expect-not: GL101
        return out

    def _swap(self, model, batch):
        model = self.others[0]
        return model(torch.as_tensor(batch)).argmax(-1)
