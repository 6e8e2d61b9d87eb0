"""Shape of the recall cause `eval-in-init-helper-attribute-forward` (benchmarks/recall, first-sight batch 6).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import numpy as np
import torch
import torch.nn as nn


def build_model(cfg):
    return nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 1, 1))


class Detector:
    def __init__(self, cfg, backend="torch"):
        self.backend = backend
        if backend == "torch":
            self._init_torch_model(cfg)

    def _init_torch_model(self, cfg):
        self.model = build_model(cfg)
        self.model.load_state_dict(torch.load(cfg["weights"]))
        self.model.eval()

    def __call__(self, images):
        results = []
        for img in images:
            batch = torch.from_numpy(np.expand_dims(img, 0))
            maps = self.model(batch)  # expect: GL101
            results.append(maps.detach().numpy())
        return results
