"""Shape of the recall cause `rollout-after-trainer-prep-rollout` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A runner asks its trainer object to put every policy network in eval mode
(the helper lives on the trainer, in another file in the project), then
steps the environments with actions from a policy method; no gradient is
ever taken from the actions, which are turned into numpy arrays.
"""
import numpy as np
import torch
import torch.nn as nn


class Policy:
    def __init__(self):
        self.actor = nn.Linear(4, 2)

    def get_actions(self, obs):
        return self.actor(torch.as_tensor(obs, dtype=torch.float32))


class Trainer:
    def __init__(self, policies):
        self.policies = policies

    def prep_rollout(self):
        for policy in self.policies.values():
            policy.actor.eval()


class Runner:
    def __init__(self):
        self.policies = {"p0": Policy()}
        self.trainer = Trainer(self.policies)

    def collect(self, steps=5):
        policy = self.policies["p0"]
        rewards = []
        obs = np.zeros((3, 4))
        for _ in range(steps):
            acts = policy.get_actions(obs)  # expect: GL101
            rewards.append(float(acts.detach().numpy().sum()))
        return np.mean(rewards)

    def evaluate(self):
        self.trainer.prep_rollout()
        return self.collect()


print(Runner().evaluate())
