"""Shape of the recall cause `warmup-forward-discarded-before-training` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

Before its optimisation loop starts, a driver runs the whole model once as a
"warm-up" (to initialise kernels or a lazily built backend) and throws the
result away; the warm-up runs with gradients on, so every activation of the
full forward is recorded for a backward that never comes.
"""
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.code = nn.Parameter(torch.randn(1, 32))
        self.decoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))

    def forward(self, target):
        return -torch.cosine_similarity(self.decoder(self.code), target).mean()


class Search(nn.Module):
    def __init__(self, target, steps=100):
        super().__init__()
        self.scorer = Scorer()
        self.target = target
        self.steps = steps
        self.opt = torch.optim.Adam([self.scorer.code], lr=0.05)

    def forward(self):
        self.scorer(self.target)  # expect: GL101
        for _ in range(self.steps):
            loss = self.scorer(self.target)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return self.scorer.code.detach()
