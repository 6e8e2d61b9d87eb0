"""Shape of the recall cause `custom-pipeline-samples-appended-per-batch` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A sampling pipeline whose own __call__ runs its denoiser without a guard is
called once per evaluation batch, and every batch's samples are appended to a
list that lives until the end of the script, so every batch's whole sampling
graph stays alive.
"""
import torch
import torch.nn as nn


class Sampler:
    def __init__(self, denoiser: nn.Module):
        self.denoiser = denoiser

    def __call__(self, cond, steps=20):
        x = torch.randn(cond.shape[0], 8)
        for _ in range(steps):
            x = x - 0.1 * self.denoiser(torch.cat([x, cond], dim=1))
        return x.softmax(dim=1)


def evaluate(sampler, batches):
    collected = []
    for cond in batches:
        out = sampler(cond)
        collected.append(out)  # expect: GL301
    return torch.cat(collected)
