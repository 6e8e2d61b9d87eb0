"""Shape of the recall cause `parameter-map-averaged-into-attribute-by-epoch-hook` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A reconstruction object keeps a weighting map as a plain attribute. A hook
that the optimisation loop calls before every epoch, with gradients on,
rebuilds the map from a trainable parameter and averages it with the stored
one: the stored map now carries the parameter's graph, and each epoch links
the new graph to all the previous ones, which are never freed.
"""
import torch
import torch.nn as nn


class Illumination(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.field = nn.Parameter(torch.randn(size, size))

    def intensity(self):
        return self.field.abs() ** 2


class Sample:
    def __init__(self, size):
        self.values = nn.Parameter(torch.ones(size, size))
        self.weight_map = None

    def refresh_weight_map(self, illumination):
        fresh = illumination.intensity()
        if self.weight_map is None:
            self.weight_map = fresh
        else:
            self.weight_map = (self.weight_map + fresh) / 2  # expect: GL301


class Reconstructor:
    def __init__(self, size=8):
        self.illumination = Illumination(size)
        self.sample = Sample(size)
        params = [self.sample.values, *self.illumination.parameters()]
        self.optimizer = torch.optim.Adam(params, lr=1e-2)

    def before_epoch(self):
        self.sample.refresh_weight_map(self.illumination)

    def run(self, measured, epochs=20):
        for _ in range(epochs):
            self.before_epoch()
            model = self.sample.values * self.illumination.intensity()
            loss = ((model - measured) ** 2).sum()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return self.sample.values.detach()
