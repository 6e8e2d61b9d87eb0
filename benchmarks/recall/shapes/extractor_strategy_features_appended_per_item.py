"""Shape of the recall cause `extractor-strategy-features-appended-per-item` (benchmarks/recall/first-sight-20.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A feature extractor delegates the forward pass to a pluggable strategy
object picked from a registry (the model it wraps was put in eval mode
there); the per-item feature dicts come back with their graphs and are
collected in a list over every item of a file (frames of a clip), so all
items' activations stay alive until the list is combined.
"""
import torch
import torch.nn as nn

STRATEGIES = {}


class LinearProbe:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4))
        self.net.eval()

    def features(self, x):
        hidden = self.net[0](x)
        return {"hidden": hidden, "out": self.net[2](self.net[1](hidden))}


STRATEGIES["probe"] = LinearProbe


class Extractor:
    def __init__(self, kind):
        self.strategy = STRATEGIES[kind]()

    def run(self, clip):
        per_frame = []
        for frame in clip:
            feats = self.strategy.features(frame.unsqueeze(0))
            per_frame.append(feats)  # expect: GL301
        return {k: torch.stack([f[k] for f in per_frame]).mean(0) for k in per_frame[0]}
