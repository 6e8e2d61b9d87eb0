"""Precision case (issue 26): a method named ``step`` does not train.

``Agent.act`` switches grad off for the thread; ``learn``, the class's way to
a backward, switches it back on first. ``collect`` calls ``self.env.step(a)``,
an environment's step (nothing shows an optimizer there): it may not be
counted as training that runs with grad off, so the class keeps grad off
outside its updates (the preview tier, which goes by names, reports it).
``Tuner.score`` stays reported: ``tune`` steps an optimizer that
``torch.optim.Adam`` built, without switching on first.
"""

import torch


class Agent:
    def __init__(self, policy, env):
        self.policy = policy
        self.env = env
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)

    def learn(self, batches):
        torch.set_grad_enabled(True)
        for batch in batches:
            self.optimizer.zero_grad()
            self.policy.loss(batch).backward()
            self.optimizer.step()

    def collect(self, steps):
        return [self.env.step(self.env.sample()) for _ in range(steps)]

    def act(self, obs):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        return self.policy(obs)


class Tuner:
    def __init__(self, head):
        self.head = head
        self.opt = torch.optim.Adam(head.parameters())

    def calibrate(self, pairs):
        torch.set_grad_enabled(True)
        for x, y in pairs:
            self.head.bias.data.add_(y - self.head(x))

    def tune(self, x, y):
        self.opt.zero_grad()
        self.opt.step()

    def score(self, x):
        torch.set_grad_enabled(False)  # expect: GL105:9
        return self.head(x)
