"""Shape of the recall cause `output-passed-to-metric-state` (benchmarks/recall, first-sight batch 7).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Overlap:
    """Sums soft overlap counts over every batch it is given, until reset."""

    def __init__(self, classes):
        self.hits = torch.zeros(classes)
        self.total = torch.zeros(classes)

    def update(self, probs, target):
        self.hits += (probs * target).sum(dim=0)
        self.total += (probs + target).sum(dim=0)


class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 3)
        self.overlap = Overlap(3)

    def training_step(self, x, y):
        probs = self.head(x).softmax(dim=-1)
        loss = nn.functional.binary_cross_entropy(probs, y)
        # the metric keeps a running sum of the probabilities, and with it each step's graph
        self.overlap.update(probs, y)  # expect: GL301
        return loss
