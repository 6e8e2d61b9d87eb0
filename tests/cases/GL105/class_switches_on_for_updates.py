"""Precision case: a class that keeps grad off outside its updates.

``Learner.rollout`` switches grad off for the thread on purpose: ``learn``,
the class's one way to a backward (through ``_update``), switches it back on
first, so no backward of the class runs with grad off. ``Critic.score`` is
not covered: ``fine_tune``, which callers may run after it, reaches an
optimizer step without switching on.
"""

import torch


class Learner:
    def __init__(self, policy, optimizer):
        self.policy = policy
        self.optimizer = optimizer

    def _update(self, batch):
        self.optimizer.zero_grad()
        self.policy.loss(batch).backward()
        self.optimizer.step()

    def learn(self, batches):
        torch.set_grad_enabled(True)
        self.policy.train()
        for batch in batches:
            self._update(batch)

    def rollout(self, env, steps):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        self.policy.eval()
        return [self.policy.act(env.observe()) for _ in range(steps)]


class Critic:
    def __init__(self, head, optimizer):
        self.head = head
        self.optimizer = optimizer

    def fine_tune(self, pairs):
        for x, y in pairs:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.head(x), y).backward()
            self.optimizer.step()

    def calibrate(self, pairs):
        torch.set_grad_enabled(True)
        for x, y in pairs:
            self.head.bias.data.add_(y - self.head(x))

    def score(self, x):
        torch.set_grad_enabled(False)  # expect: GL105:9
        return self.head(x)
