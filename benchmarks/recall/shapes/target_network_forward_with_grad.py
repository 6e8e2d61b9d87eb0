"""Shape of the recall cause `target-network-forward-with-grad` (benchmarks/recall/first-sight-24.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A learner keeps a slowly updated copy of its value network as a target
network.  The copy is in no optimizer and is never put in eval mode; the
update step runs it over the whole batch with gradients on, builds bootstrap
targets from its outputs and detaches them only where the loss reads them,
so every step records a graph through the target network that no backward
ever uses.
"""
import copy

import torch
import torch.nn as nn


class ValueLearner:
    def __init__(self, critic: nn.Module, gamma=0.99, lr=1e-3):
        self.critic = critic
        self.target = copy.deepcopy(critic)
        self.gamma = gamma
        self.opt = torch.optim.Adam(self.critic.parameters(), lr=lr)

    def bootstrap(self, rewards, next_values, dones):
        return rewards + self.gamma * (1 - dones) * next_values

    def update(self, states, next_states, rewards, dones):
        next_values = self.target(next_states).squeeze(-1)  # expect: GL101
        targets = self.bootstrap(rewards, next_values, dones)
        values = self.critic(states).squeeze(-1)
        loss = ((targets.detach() - values) ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def sync(self, tau=0.01):
        with torch.no_grad():
            for t, p in zip(self.target.parameters(), self.critic.parameters()):
                t.mul_(1 - tau).add_(tau * p)
