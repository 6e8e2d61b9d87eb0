"""Recall case: a DQN target built in place from ``q_values.detach()``, a parameter.

``target`` shares ``q_values``' storage: writing the TD targets into it
overwrites ``q_values`` too, so the loss compares the targets with
themselves and the gradient is zero.
"""

import torch
import torch.nn.functional as F


def td_loss(q_values, actions, rewards, next_q_values, dones, gamma=0.99):
    target = q_values.detach()
    rows = torch.arange(actions.size(0))
    target[rows, actions] = rewards + gamma * next_q_values.max(1)[0] * (1 - dones)  # expect: GL201:5
    return F.smooth_l1_loss(q_values, target)
