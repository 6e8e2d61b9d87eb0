"""Shape of the recall cause `train-step-logging-forward-with-grad` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A trainer's step updates the model, then runs the model once more on the
real batch and on the sampled negatives only to log their mean outputs as
Python floats; these extra forwards run with gradients on (the model is in
train mode) and no gradient is ever taken from them.
"""
import torch
import torch.nn as nn


class EnergyTrainer:
    def __init__(self, model: nn.Module, loss_fn, lr=1e-3):
        self.model = model
        self.loss_fn = loss_fn
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)

    def step(self, batch):
        self.opt.zero_grad()
        loss, negatives = self.loss_fn(batch)
        loss.backward()
        self.opt.step()
        return {
            "loss": loss.item(),
            "pos": self.model(batch).mean().item(),  # expect: GL1xx
            "neg": self.model(negatives).mean().item(),  # expect: GL1xx
        }

    def epoch(self, loader):
        self.model.train()
        return [self.step(b) for b in loader]
