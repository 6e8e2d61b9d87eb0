"""Shape of the recall cause `critic-value-passed-to-episode-container-add-method` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
A rollout loop runs the critic on every observation with autograd on and
hands the raw output tensor to an episode container, whose add method
appends it to a list kept for the whole episode (and beyond, in the
dataset): every step's critic graph stays alive although the values are
only used as numbers to compute returns and advantages.
"""
import torch
import torch.nn as nn


class Episode:
    def __init__(self):
        self.states = []
        self.values = []

    def add(self, state, value):
        self.states.append(state)
        self.values.append(value)


class Learner:
    def __init__(self, env):
        self.env = env
        self.critic = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 1))

    def collect(self, steps):
        episode = Episode()
        state = self.env.reset()
        for _ in range(steps):
            value = self.critic(torch.as_tensor(state, dtype=torch.float32))
            step_value = value  # expect: GL301
            episode.add(state, step_value)
            state, _, done = self.env.step(0)
            if done:
                break
        return episode
