"""Precision case (first-sight precision batch 28, pytorch3d's NeRF raysampler test):
an eval-mode sampler of another file whose classes make no parameter (buffers,
scalars and parameter-free submodules only) records no graph for inputs that need
none, however many rays the loop keeps.

Reported: the same loop over a subclass that adds a linear layer.
"""

import torch

from samplers import LearnedSampler, RaySampler


def sample_rays(batches):
    sampler = RaySampler(8)
    sampler.eval()
    rays = []
    for origins in batches:
        rays.append(sampler(origins))  # expect-not: GL101
    return torch.cat(rays).numpy()


def sample_learned(batches):
    sampler = LearnedSampler(8)
    sampler.eval()
    rays = []
    for origins in batches:
        rays.append(sampler(origins))  # expect: GL101:21
    return torch.cat(rays).numpy()
