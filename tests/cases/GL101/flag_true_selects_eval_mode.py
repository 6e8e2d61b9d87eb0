"""Recall case: a weak-supervision trainer runs one prediction loop for both
phases, ``if evaluate: self.model.eval() else: self.model.train()``, and its
``test`` calls it with ``evaluate=True``: on that path the model is in eval
mode, and every batch's prediction is joined to the running tensor with its
graph, so the whole test set's activations stay alive until the loop ends.
"""

import numpy as np
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, device):
        self.model = model.to(device)
        self.device = device

    def test(self, features, labels):
        predictions = self._prediction_loop(features, True)
        predictions = predictions.cpu().detach().numpy()
        return float((np.argmax(predictions, axis=1) == labels).mean())

    def _prediction_loop(self, features, evaluate: bool):
        if evaluate:
            self.model.eval()
        else:
            self.model.train()
        predictions_list = torch.Tensor()
        for batch in DataLoader(features, batch_size=64):
            x = batch[0].to(self.device)
            predictions = self.model(x)  # expect: GL101:27
            predictions_list = torch.cat([predictions_list, predictions.to("cpu")])
        return predictions_list
