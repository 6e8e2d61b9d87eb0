"""Recall case (first-sight recall batch 15): an inference method of a
segmentation pipeline returns the indices half of ``torch.max(scores, dim=-1)``.

``torch.max`` with a dimension returns a (values, indices) pair; its
``.indices`` (or ``[1]``) are integers with no history, so nothing the caller
gets takes it back into the graph the eval-mode forward records. Precision: the
values half, the elementwise ``torch.max(a, b)`` and a dimension that may be a
tensor stay silent: what they return carries the graph to the caller.
"""

import torch
import torch.nn as nn


class PointHead(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.fc = nn.Linear(d_in, n_classes)

    def forward(self, x):
        return self.fc(x)


class SemanticSegmentation:
    def __init__(self, d_in, n_classes):
        self.model = PointHead(d_in, n_classes)

    def run_inference(self, points, device):
        model = self.model
        model.to(device)
        model.eval()
        scores = model(points)  # expect: GL101:18
        pred = torch.max(scores.squeeze(0), dim=-1).indices
        return pred

    def predict_labels(self, points):
        self.model.eval()
        return torch.max(self.model(points), 1)[1]  # expect: GL101:26

    def predict_labels_method(self, points):
        self.model.eval()
        return self.model(points).max(-1).indices  # expect: GL101:16

    def confidence(self, points):
        self.model.eval()
        scores = self.model(points)  # expect-not: GL101
        return torch.max(scores, dim=-1).values

    def clipped_winner(self, points, floor):
        self.model.eval()
        scores = self.model(points)  # expect-not: GL101
        return torch.max(scores, floor)[1]

    def winner_along(self, points, dim):
        self.model.eval()
        scores = self.model(points)  # expect-not: GL101
        return torch.max(scores, dim)[1]
