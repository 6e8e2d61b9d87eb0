"""Shape of the recall cause `advantage-helper-forward-detached-by-caller` (benchmarks/recall/first-sight-22.toml).

A helper that estimates advantages and value targets over a whole batch of
transitions runs the critic on every state with gradients enabled and
returns tensors that still carry the critic's graph; every caller detaches
them at once, so no gradient is ever taken through that forward.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


def estimate_gae(critic, states, next_states, rewards, dones, gamma=0.99, lam=0.95):
    values = critic(states).squeeze(-1)  # expect: GL101
    next_values = critic(next_states).squeeze(-1)  # expect: GL101
    adv = torch.zeros_like(values)
    running = 0.0
    for t in reversed(range(len(rewards))):
        delta = rewards[t] + gamma * next_values[t] * (1 - dones[t]) - values[t]
        running = delta + gamma * lam * (1 - dones[t]) * running
        adv[t] = running
    return adv + values, adv


class Learner:
    def __init__(self, critic: nn.Module, actor: nn.Module):
        self.critic = critic
        self.actor = actor

    def update(self, states, next_states, rewards, dones):
        targets, adv = estimate_gae(self.critic, states, next_states, rewards, dones)
        targets, adv = targets.detach(), adv.detach()
        return targets, adv
