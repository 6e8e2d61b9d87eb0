"""Shape of the recall cause `recurrent-state-carried-with-grad` (benchmarks/recall/first-sight-3.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.cell = nn.GRUCell(4, 8)
        self.head = nn.Linear(8, 2)

    def rollout(self, env):
        h = torch.zeros(1, 8)
        obs, done = env.reset(), False
        while not done:
            h = self.cell(torch.as_tensor(obs).float().view(1, 4), h)  # expect: GL1xx
            obs, _, done, _ = env.step(int(self.head(h).argmax()))
