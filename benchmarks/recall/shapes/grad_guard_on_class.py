"""Shape of the recall cause `grad-guard-on-class` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn

encoder = nn.Linear(16, 4)
encoder.eval()


@torch.no_grad()  # expect: GL107
class Runner:
    """The decorator wraps only the construction of a Runner, not its methods."""

    def __init__(self, frames):
        self.frames = frames

    def run(self):
        outs = []
        for frame in self.frames:
            outs.append(encoder(frame))  # expect: GL101
        return outs


print(len(Runner([torch.randn(2, 16) for _ in range(3)]).run()))
