"""Precision case: the same two-phase loop, but the file's only call passes
``evaluate=False``: on every path the file shows, the model trains, and the
caller runs backward through the joined predictions.
"""

import torch


class Trainer:
    def __init__(self, model):
        self.model = model

    def fit_epoch(self, batches, targets, optimizer):
        predictions = self._prediction_loop(batches, False)
        loss = torch.nn.functional.cross_entropy(predictions, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    def _prediction_loop(self, batches, evaluate):
        if evaluate:
            self.model.eval()
        else:
            self.model.train()
        out = torch.Tensor()
        for x in batches:
            out = torch.cat([out, self.model(x)])  # expect-not: GL101
        return out
