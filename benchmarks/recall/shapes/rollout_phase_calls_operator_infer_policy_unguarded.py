"""Shape of the recall cause `rollout-phase-calls-operator-infer-policy-unguarded` (benchmarks/recall/first-sight-25.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A rollout operator loads its policy network and puts it in eval mode; the
control loop runs through phase objects, and the rollout phase calls back
`self.op.infer_policy()` on every control step.  `infer_policy` is abstract
in the base operator and a subclass implements it as a forward of the policy
turned into a numpy action, so every step records a graph nobody uses.
"""
from abc import ABC, abstractmethod

import numpy as np
import torch
import torch.nn as nn


class Phase:
    def __init__(self, op):
        self.op = op

    def pre_update(self):
        pass


class RolloutPhase(Phase):
    def pre_update(self):
        self.op.infer_policy()  # expect: GL101


class RolloutOperator(ABC):
    def __init__(self, steps):
        self.steps = steps
        self.setup_policy()
        self.phase = RolloutPhase(self)

    def load_weights(self):
        self.policy.eval()

    @abstractmethod
    def setup_policy(self):
        pass

    @abstractmethod
    def infer_policy(self):
        pass

    def run(self):
        self.actions = []
        for _ in range(self.steps):
            self.phase.pre_update()
        return self.actions


class MlpRollout(RolloutOperator):
    def setup_policy(self):
        self.policy = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3))
        self.load_weights()

    def infer_policy(self):
        state = torch.randn(1, 6)
        action = self.policy(state)[0]
        self.actions.append(action.cpu().detach().numpy().astype(np.float64))


print(len(MlpRollout(4).run()))
