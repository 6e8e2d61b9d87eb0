"""Shape of the recall cause `value-output-in-policy-transition-collected-per-step` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
The policy's sampling method runs the critic with autograd on, keeps its
output on the policy and exposes it in a transition dict; the interaction
loop appends that dict to its list of experiences every environment step,
so every step's critic graph stays alive until the batch is consumed.
"""
import torch
import torch.nn as nn


class Policy:
    def __init__(self):
        self.critic = nn.Linear(4, 1)
        self.actor = nn.Linear(4, 2)
        self.transition = {}

    def sample_action(self, state):
        x = torch.tensor(state, dtype=torch.float32).unsqueeze(0)
        self.value = self.critic(x)
        action = int(torch.argmax(self.actor(x)).item())
        self.transition = {"value": self.value}  # expect: GL301
        return action

    def get_transition(self):
        return self.transition


class Interactor:
    def __init__(self, policy, env):
        self.policy = policy
        self.env = env
        self.exps = []

    def run(self, steps):
        obs = self.env.reset()
        for _ in range(steps):
            action = self.policy.sample_action(obs)
            obs, reward, done = self.env.step(action)
            self.exps.append(dict(reward=reward, done=done, **self.policy.get_transition()))
        return self.exps
