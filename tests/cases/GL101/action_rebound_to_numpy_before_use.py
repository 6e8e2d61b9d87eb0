"""Recall case (first-sight recall batch 26): an agent's action selection puts its actor
in eval mode and returns the forward's output; the rollout loop rebinds the action
to ``action.detach().numpy()`` before it steps the environment and stores a float
of it, so no caller can reach the graph.

Each read of ``action`` after the rebinding holds the NumPy array, not the tensor:
the flows follow the binding that reaches a read, not the name alone.
"""

import torch
from torch import nn


class Agent:
    def __init__(self, buffer, state_dim, action_dim):
        self.actor = nn.Sequential(nn.Linear(state_dim, 64), nn.Tanh(), nn.Linear(64, action_dim))
        self.buffer = buffer

    def select_action(self, state):
        self.actor.eval()
        action = self.actor(state)  # expect: GL101:18
        self.actor.train()
        return action

    def rollout(self, env, steps):
        state = env.reset()
        for _ in range(steps):
            action = self.select_action(torch.as_tensor(state, dtype=torch.float32))
            action = action.detach().numpy()
            next_state, reward, done = env.step(action)
            self.buffer.add(state, [action.item()], reward, next_state)
            state = env.reset() if done else next_state



class KeepingAgent:
    """Precision counterpart: the loop keeps every action tensor and returns them, so
    the graphs may be wanted by a caller the file does not show."""

    def __init__(self, state_dim, action_dim):
        self.actor = nn.Sequential(nn.Linear(state_dim, 64), nn.Tanh(), nn.Linear(64, action_dim))

    def choose_action(self, state):
        self.actor.eval()
        action = self.actor(state)  # expect-not: GL101
        self.actor.train()
        return action

    def rollout(self, env, steps):
        state = env.reset()
        actions = []
        for _ in range(steps):
            action = self.choose_action(torch.as_tensor(state, dtype=torch.float32))
            actions.append(action)
            state, reward, done = env.step(action.detach().numpy())
        return actions
