"""Precision case: loss weights read from a config with ``cfg.get(...)``.

``self.loss_cfg.get(name, 1.0)`` reads a float from a configuration mapping:
the loop collects and sums Python numbers, no tensor is involved.
"""

import torch.nn.functional as F


class WeightedCriterion:
    def __init__(self, loss_cfg, names=("ce", "dice", "boundary")):
        self.loss_cfg = loss_cfg
        self.weights = []
        self.total_weight = 0.0
        for name in names:
            self.weights.append(self.loss_cfg.get(f"{name}_weight", 1.0))  # expect-not: GL301
            self.total_weight += self.loss_cfg.get(f"{name}_weight", 1.0)  # expect-not: GL301

    def __call__(self, logits, target, extra_terms):
        terms = [F.cross_entropy(logits, target), *extra_terms]
        return sum(w * t for w, t in zip(self.weights, terms)) / self.total_weight
