"""Shape of the recall cause `ema-buffer-updated-with-graph` (benchmarks/recall, first-sight batch 5).

A module keeps a running average in a buffer and updates it in its forward
from the (graph-carrying) input, in place or by reassignment, with gradients
on: each step chains onto the previous step's graph, which is never freed.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Codebook(nn.Module):
    def __init__(self, size, dim, decay=0.99):
        super().__init__()
        self.decay = decay
        self.register_buffer("embed", torch.randn(size, dim))
        self.register_buffer("embed_avg", torch.zeros(size, dim))

    def forward(self, x):
        ind = torch.cdist(x, self.embed).argmin(-1)
        onehot = nn.functional.one_hot(ind, self.embed.shape[0]).type(x.dtype)
        if self.training:
            embed_sum = onehot.t() @ x
            self.embed_avg.lerp_(embed_sum, 1 - self.decay)  # expect: GL301
            self.embed.data.copy_(self.embed_avg)
        return self.embed[ind]
