"""Recall case: a predictor that is no `nn.Module` loads its network into a local,
switches it with `eval()` and stores it (`net.eval(); self.net = net`), so the
attribute is in eval mode in every other method; `predict_all` runs it on
every batch with gradients on and keeps only labels.
"""

import torch
from torch import nn


class Predictor:
    def __init__(self, path):
        net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        net.load_state_dict(torch.load(path, map_location="cpu"))
        net.eval()
        self.net = net

    def predict_all(self, batches):
        labels = []
        for batch in batches:
            labels += self.net(batch).argmax(-1).tolist()  # expect: GL101:23
        return labels
