"""Shape of the recall cause `eval-in-init-attribute-forward` (benchmarks/recall, first-sight batch 3).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Sampler:
    def __init__(self, scorer: nn.Module, steps: int = 50):
        self.scorer = scorer.eval()
        self.steps = steps

    def score(self, x):
        return self.scorer(x).detach()  # expect: GL101

    def run(self, x):
        for _ in range(self.steps):
            x = x - 0.1 * self.score(x)
        return x
