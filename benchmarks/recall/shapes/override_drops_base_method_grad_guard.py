"""Shape of the recall cause `override-drops-base-method-grad-guard` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A base scorer decorates its per-batch scoring method with torch.no_grad()
and loops over a loader calling self.score(...). A subclass overrides the
scoring method to add a learned calibration parameter and forgets the
decorator, so the base loop (entered after the evaluator has put the network
in eval mode) now runs every batch through the network with gradients on and
keeps the scores with their graph.
"""
import torch
import torch.nn as nn


class Scorer:
    @torch.no_grad()
    def score(self, net, batch):
        return torch.softmax(net(batch), dim=1).max(dim=1).values

    def run(self, net, loader):
        out = []
        for batch in loader:
            out.append(self.score(net, batch).cpu())
        return torch.cat(out)


class CalibratedScorer(Scorer):
    def __init__(self):
        self.scale = nn.Parameter(torch.ones(1))

    def score(self, net, batch):
        logits = net(batch)  # expect: GL101
        return torch.softmax(logits / self.scale, dim=1).max(dim=1).values


def evaluate(net, loader):
    net.eval()
    return CalibratedScorer().run(net, loader)
