"""Shape of the recall cause `timing-benchmark-forward-with-grad` (benchmarks/recall/first-sight-22.toml).

A benchmark function builds a model and a random input and times one forward
with gradients on; only the elapsed time is returned, no gradient is ever
taken, yet every step of the unrolled forward is recorded for a backward.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import time

import torch


class Unrolled(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = torch.nn.Linear(width, width, bias=False)

    def forward(self, seq):
        state = torch.zeros(seq.shape[1:])
        for x in seq:
            state = torch.tanh(self.fc(x) + state)
        return state


def time_forward(width=256, steps=100, batch=32):
    model = Unrolled(width)
    seq = torch.rand(steps, batch, width)
    start = time.time()
    model(seq)  # expect: GL1xx
    return time.time() - start
