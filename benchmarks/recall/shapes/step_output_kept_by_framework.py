"""Shape of the recall cause `step-output-kept-by-framework` (benchmarks/recall, first-sight batch 7).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The training step returns extra losses with their graph; the framework that
calls it (PyTorch Lightning before 2.0) keeps every step's return value for
`training_epoch_end`, detaching only the "loss" key, so each extra entry keeps
its step's graph until the epoch ends. That the returns are kept lies in the
framework, not in this file.
"""
from typing import Any, List

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)

    def training_step(self, batch, batch_idx: int):
        x, y = batch
        pred = self.net(x)
        loss = F.mse_loss(pred, y)
        first = F.mse_loss(pred[:, :1], y[:, :1])
        return {
            "loss": loss,
            "first_loss": first,  # expect: GL301
        }

    def training_epoch_end(self, outputs: List[Any]):
        firsts = torch.stack([out["first_loss"] for out in outputs])
        print(firsts.mean().item())
