"""Precision case: the model in eval mode has no trainable parameters.

``RunningNormalizer`` holds buffers only: its forward records nothing worth
keeping, whatever the grad mode, so running it after ``eval()`` is fine.
"""

import torch
import torch.nn as nn


class RunningNormalizer(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))

    def forward(self, x):
        return (x - self.mean) / (self.var + self.eps).sqrt()


def normalised_observations(env, steps, dim):
    normalizer = RunningNormalizer(dim)
    normalizer.eval()
    observations = []
    obs = env.reset()
    for _ in range(steps):
        observations.append(normalizer(obs))  # expect-not: GL101
        obs, _, done, _ = env.step(env.action_space.sample())
        if done:
            obs = env.reset()
    return torch.stack(observations)
