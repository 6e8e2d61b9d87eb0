"""Shape of the recall cause `sample-method-delegates-to-unguarded-sampler` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A model wrapper builds its network, training objective and sampler in
__init__; its sample/decode methods hand the call straight to the sampler
module (another file, no guard of its own), so generating runs every
denoising step of the network with gradients on.
"""
import torch
import torch.nn as nn

from .samplers import StepSampler


class GenerativeModel(nn.Module):
    def __init__(self, net: nn.Module, steps: int = 50):
        super().__init__()
        self.net = net
        self.sampler = StepSampler(net=self.net, num_steps=steps)

    def forward(self, x):
        noise = torch.randn_like(x)
        return ((self.net(x + noise) - x) ** 2).mean()

    def sample(self, noise, **kwargs):
        return self.sampler(noise, **kwargs)  # expect: GL101


class Upsampler(GenerativeModel):
    def sample(self, low, **kwargs):
        noise = torch.randn_like(low)
        return super().sample(noise, cond=low, **kwargs)  # expect: GL101
