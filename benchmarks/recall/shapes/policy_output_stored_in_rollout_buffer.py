"""Shape of the recall cause `policy-output-stored-in-rollout-buffer` (benchmarks/recall, first-sight batch 6).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Rollout:
    def __init__(self):
        self.log_probs = []
        self.rewards = []

    def clear(self):
        del self.log_probs[:]
        del self.rewards[:]


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2), nn.Softmax(dim=-1))

    def act(self, obs, rollout):
        dist = Categorical(self.head(torch.as_tensor(obs, dtype=torch.float32)))
        choice = dist.sample()
        rollout.log_probs.append(dist.log_prob(choice))  # expect: GL301
        return choice.item()


behaviour = Policy()
rollout = Rollout()
for step in range(1, 201):
    behaviour.act([0.1, 0.2, 0.3, 0.4], rollout)
    rollout.rewards.append(1.0)
    if step % 100 == 0:
        old = torch.stack(rollout.log_probs).detach()
        print(old.mean().item())
        rollout.clear()
