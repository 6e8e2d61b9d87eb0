"""Shape of the recall cause `eval-then-nested-submodule-method` (benchmarks/recall, first-sight batch 3).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Codec(nn.Module):
    def __init__(self):
        super().__init__()
        self.dec = nn.Linear(4, 16)

    def decode(self, z):
        return self.dec(z)


class World(nn.Module):
    def __init__(self):
        super().__init__()
        self.codec = Codec()
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(x)


def evaluate(model: World, batches):
    model.eval()

    def render(latents):
        return model.codec.decode(latents).clamp(0, 1)  # expect: GL101

    total = 0.0
    with torch.no_grad():
        for x in batches:
            last = model(x)
            total += float(last.pow(2).mean())
    return total, render(last[:1])
