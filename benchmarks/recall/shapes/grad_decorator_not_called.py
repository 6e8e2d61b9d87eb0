"""Shape of the recall cause `grad-decorator-not-called` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch import nn


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(3, 1)

    @torch.no_grad  # expect: GL102
    def query(self, x):
        return self.net(x).squeeze(-1)
