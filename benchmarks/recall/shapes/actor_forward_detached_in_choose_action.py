"""Shape of the recall cause `actor-forward-detached-in-choose-action` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

An off-policy agent picks the action for the next environment step by running
its actor (in train mode, never put in eval mode) with gradients on and then
detaching the output to add exploration noise in NumPy: every environment
step records a graph of the actor that no backward ever reads.
"""
import numpy as np
import torch
import torch.nn as nn


class Agent:
    def __init__(self, n_in, n_out):
        self.actor = nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, n_out), nn.Tanh())
        self.noise = 0.1

    def choose_action(self, state):
        x = torch.from_numpy(np.expand_dims(state, 0)).float()
        action = self.actor(x)[0].detach().numpy()  # expect: GL101
        action += self.noise * np.random.randn(*action.shape)
        return np.clip(action, -1.0, 1.0)


agent = Agent(3, 1)
for _ in range(5):
    print(agent.choose_action(np.random.randn(3).astype(np.float32)))
