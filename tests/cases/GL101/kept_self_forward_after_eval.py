"""Recall case (kept): ``self.eval()`` then ``self(x)`` in a model method.

A convenience ``predict`` method on the model: its output is turned into a
list of labels, no graph is wanted.
"""

import torch.nn as nn
import torch.nn.functional as F


class SentimentClassifier(nn.Module):
    def __init__(self, encoder, hidden, classes):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(hidden, classes)

    def forward(self, tokens):
        return self.head(self.encoder(tokens)[:, 0])

    def predict(self, tokens):
        self.eval()
        probs = F.softmax(self(tokens), dim=-1)  # expect: GL101:27
        return probs.argmax(-1).tolist()
