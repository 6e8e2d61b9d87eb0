"""Shape of the recall cause `requires-grad-typo` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class FixedBasis(nn.Linear):
    def __init__(self, n):
        super().__init__(n, n, bias=False)
        self.weight.data = torch.eye(n)
        self.weight.require_grad = False  # expect: GL303
