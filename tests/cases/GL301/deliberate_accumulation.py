"""Precision case (kept): accumulation whose graph is used afterwards.

REINFORCE collects the log-probabilities of an episode to differentiate their
weighted sum, and gradient accumulation sums micro-batch losses before one
``backward()``: the graphs are needed, neither is a leak.
"""

import torch


def reinforce_episode(policy, env, optimizer, gamma=0.99):
    log_probs, rewards = [], []
    state, done = env.reset(), False
    while not done:
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))  # expect-not: GL301
        state, reward, done, _ = env.step(action.item())
        rewards.append(reward)
    returns = torch.tensor([gamma**i * r for i, r in enumerate(rewards)]).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def accumulated_step(model, criterion, micro_batches, optimizer):
    total = 0.0
    for x, y in micro_batches:
        total = total + criterion(model(x), y) / len(micro_batches)  # expect-not: GL301
    total.backward()
    optimizer.step()
