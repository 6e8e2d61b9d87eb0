"""Precision case: the same kind of ensemble, but ``finetune`` puts every model
of the list back in training mode, so the mode in which ``predict`` runs them
depends on which method ran last: not proven eval mode.
"""

import torch

from .models import Net


class Ensemble:
    def __init__(self, paths):
        self.models = []
        for path in paths:
            net = Net()
            net.load_state_dict(torch.load(path))
            net.eval()
            self.models.append(net)

    def finetune(self, batch):
        for net in self.models:
            net.train()
            net(batch).sum().backward()

    def predict(self, x):
        return [net(x).detach() for net in self.models]  # expect-not: GL101
