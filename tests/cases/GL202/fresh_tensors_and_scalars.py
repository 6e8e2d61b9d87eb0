"""Precision case: ``.data`` edits of fresh tensors and of scalar counters.

The noise is made by ``torch.randn_like`` and the temperature and step count
are plain tensors created here: none is an output of a recorded operation, so
no graph can have saved them, whether they are edited through ``.data`` or
through a variable bound to it.
"""

import torch


class NoisyExplorer:
    def __init__(self, policy, sigma=0.1, decay=0.999):
        self.policy = policy
        self.sigma = sigma
        self.decay = decay
        self.temperature = torch.tensor(1.0)
        self.steps = torch.zeros(())

    def act(self, obs):
        logits = self.policy(obs)
        noise = torch.randn_like(logits)
        noise.data.mul_(self.sigma * self.temperature)  # expect-not: GL202
        self.temperature.data.mul_(self.decay)  # expect-not: GL202
        self.steps.data += 1  # expect-not: GL202
        counter = self.steps.data
        counter.add_(1)  # expect-not: GL202
        scale = noise.data
        scale.clamp_(-3 * self.sigma, 3 * self.sigma)  # expect-not: GL202
        return torch.distributions.Categorical(logits=logits + noise).sample()
