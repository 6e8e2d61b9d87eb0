"""Shape of the recall cause `planner-cost-rollout-forward-with-grad` (benchmarks/recall/first-sight-26.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A model-predictive controller scores candidate action sequences for a
gradient-free optimiser (random shooting, CEM): the cost method rolls the
learned dynamics model over the planning horizon with gradients on, carries
the predicted state and adds up the step costs, and hands back numpy only.
"""
import numpy as np
import torch
import torch.nn as nn


class Planner:
    def __init__(self, dynamics, horizon):
        self.dynamics = dynamics
        self.horizon = horizon

    def score(self, state, action_seqs):
        acts = torch.from_numpy(action_seqs).float()
        obs = torch.from_numpy(state).float().expand(acts.shape[0], -1)
        total = torch.zeros(acts.shape[0])
        for t in range(self.horizon):
            obs = obs + self.dynamics(torch.cat([obs, acts[:, t]], dim=-1))  # expect: GL1xx|GL301
            total += (obs ** 2).sum(-1)
        return total.detach().numpy()

    def plan(self, state, population=64, dim=2):
        seqs = np.random.randn(population, self.horizon, dim).astype(np.float32)
        return seqs[int(np.argmin(self.score(state, seqs)))][0]


if __name__ == "__main__":
    planner = Planner(nn.Linear(6, 4), horizon=5)
    print(planner.plan(np.zeros(4, dtype=np.float32)))
