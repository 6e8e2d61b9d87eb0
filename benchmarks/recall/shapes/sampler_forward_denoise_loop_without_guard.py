"""Shape of the recall cause `sampler-forward-denoise-loop-without-guard` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A diffusion sampler module keeps the denoiser's bound method and, in its
forward, runs the whole step loop with gradients on: each step feeds the
previous step's output back in, so the graph of every denoiser call is kept
until the sample is returned (the sibling sampler of the same library has
the @torch.no_grad() this one lacks).
"""
import torch
import torch.nn as nn


class StepSampler(nn.Module):
    def __init__(self, denoiser, num_steps=50):
        super().__init__()
        self.denoise = denoiser.denoise
        self.num_steps = num_steps

    def step(self, x, sigma, sigma_next):
        d = (x - self.denoise(x, sigma=sigma)) / sigma  # expect: GL101
        return x + (sigma_next - sigma) * d

    def forward(self, noise):
        sigmas = torch.linspace(1.0, 0.0, self.num_steps)
        x = sigmas[0] * noise
        for i in range(self.num_steps - 1):
            x = self.step(x, sigmas[i], sigmas[i + 1])  # expect: GL101
        return x.clamp(-1.0, 1.0)
