"""Shape of the recall cause `inplace-on-parameter-outside-no-grad` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import math

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim, n_layers):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        nn.init.kaiming_normal_(self.proj.weight)
        # an in-place edit of a leaf that requires grad, outside torch.no_grad(): it raises
        self.proj.weight.div_(math.sqrt(2 * n_layers))  # expect: GL2xx

    def forward(self, x):
        return x + self.proj(x)


Block(8, 4)
