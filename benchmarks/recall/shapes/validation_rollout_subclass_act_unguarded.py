"""Shape of the recall cause `validation-rollout-subclass-act-unguarded` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A base trainer plays validation episodes by calling `self.act(...)`, which a
subclass implements as a forward of its policy network turned into a numpy
action; the training rollouts may be put under a guard by a setting, but the
validation loop runs every step with gradients on, and no gradient is ever
taken from the actions.
"""
import numpy as np
import torch
import torch.nn as nn


class BaseTrainer:
    def act(self, obs, greedy=False):
        raise NotImplementedError

    def score_episodes(self, env_steps, episodes=3):
        totals = []
        for _ in range(episodes):
            obs = np.zeros(4, dtype=np.float32)
            total = 0.0
            for _ in range(env_steps):
                action = self.act(obs, greedy=True)  # expect: GL101
                total += float(action.sum())
                obs = obs + action.mean()
            totals.append(total)
        return sum(totals) / episodes


class PolicyTrainer(BaseTrainer):
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))

    def act(self, obs, greedy=False):
        out = self.policy(torch.as_tensor(obs))
        if not greedy:
            out = out + 0.1 * torch.randn_like(out)
        return out.detach().numpy()


print(PolicyTrainer().score_episodes(5))
