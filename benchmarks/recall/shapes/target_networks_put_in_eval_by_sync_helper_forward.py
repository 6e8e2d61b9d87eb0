"""Shape of the recall cause `target-networks-put-in-eval-by-sync-helper-forward` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

An actor-critic agent builds target copies of its networks in `__init__` and
syncs them with a static helper that loads the weights and calls `.eval()` on
the module it is handed.  The update step then runs the target networks with
gradients on to build the bootstrap target, which reaches the critic loss
undetached: every update records (and back-propagates through) a graph of the
target networks, whose parameters are in no optimizer.
"""
import torch
import torch.nn as nn


class Agent:
    def __init__(self, n_in, gamma=0.99):
        self.actor = nn.Sequential(nn.Linear(n_in, 1), nn.Tanh())
        self.critic = nn.Linear(n_in + 1, 1)
        self.actor_tgt = nn.Sequential(nn.Linear(n_in, 1), nn.Tanh())
        self.critic_tgt = nn.Linear(n_in + 1, 1)
        self.sync_targets()
        self.gamma = gamma
        self.opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def sync_targets(self):
        self.copy_into(self.actor, self.actor_tgt)
        self.copy_into(self.critic, self.critic_tgt)

    @staticmethod
    def copy_into(src, dst):
        dst.load_state_dict(src.state_dict())
        dst.eval()

    def update(self, s, a, r, s2, done):
        a2 = self.actor_tgt(s2)
        q2 = self.critic_tgt(torch.cat([s2, a2], 1))  # expect: GL101
        target = r + self.gamma * q2 * (1 - done)
        q = self.critic(torch.cat([s, a], 1))
        loss = ((target - q) ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()
