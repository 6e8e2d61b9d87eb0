"""Precision case: a function switches grad on for its own updates and back off.

``update_net`` switches gradients on at its start and off at its end: the
False restores the mode its library's protocol expects the caller to have
(grad off for the whole run, on only around updates). Nothing shows a caller
with grad on, so it is reported only in the preview tier. A switch-on in a
nested function that is not run before the False is no such protocol.
(A switch-on *after* the False in the same function counts as restoring the
mode, as before: not reported in either tier.) A module's method runs in
forwards that training calls with grad on: reported.
"""

import torch
import torch.nn as nn


class Agent:
    def update_net(self, buffer):
        torch.set_grad_enabled(True)
        for batch in buffer:
            loss = self.critic(batch).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        return loss.item()


def train_loop(agent, env, buffer, steps):
    for _ in range(steps):
        buffer.extend(agent.explore(env))
        torch.set_grad_enabled(True)
        agent.update_net(buffer)
        torch.set_grad_enabled(False)  # expect-preview: GL105:9


def switch_on_elsewhere(model, batch):
    def resume():
        torch.set_grad_enabled(True)

    torch.set_grad_enabled(False)  # expect: GL105:5
    return model(batch), resume


class GradientStep(nn.Module):
    def potential_grad(self, x):
        torch.set_grad_enabled(True)
        x = x.requires_grad_()
        grad = torch.autograd.grad(self.net(x).sum(), x)[0]
        torch.set_grad_enabled(False)  # expect: GL105:9
        return x - grad
