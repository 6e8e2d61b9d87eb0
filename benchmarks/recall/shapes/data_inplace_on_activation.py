"""Shape of the recall cause `data-inplace-on-activation` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class ClippedCell(torch.nn.Module):
    def __init__(self, n, clip):
        super().__init__()
        self.lin = torch.nn.Linear(n, n)
        self.clip = clip

    def forward(self, x):
        memory = self.lin(x)
        memory.data.clamp_(-self.clip, self.clip)  # expect: GL202
        return memory.tanh()
