"""Precision case: every caller already runs the function with grad off.

``_compute_torques`` switches grad on for a search of its own and back off at
its end; it runs only from ``step``, which the project steps only under
``torch.inference_mode()`` or ``torch.no_grad()``: the switch-off leaves the
mode as the caller had it, and the caller's guard restores the mode on exit.
``_postprocess`` is reached only from a ``@torch.no_grad()`` method. Reported
only in the preview tier. ``clip`` is called once under ``no_grad`` and once
with grad on: reported.
"""

import torch
from tasks import BaseTask


class Env(BaseTask):
    def _compute_torques(self, actions):
        torch.set_grad_enabled(True)
        best = actions.detach().clone().requires_grad_(True)
        self.policy(best).norm().backward()
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        return best - 0.1 * best.grad

    def _postprocess(self, obs):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        return obs.clamp(-1, 1)

    @torch.no_grad()
    def observe(self):
        return self._postprocess(self.sim.read())

    def step(self, actions):
        self.torques = self._compute_torques(actions)
        return self.observe()


def clip(x):
    torch.set_grad_enabled(False)  # expect: GL105:5
    return x.clamp(-1, 1)


def rollout(env, policy, steps):
    with torch.inference_mode():
        for _ in range(steps):
            env.step(policy(env.obs))
            clip(env.obs)


@torch.no_grad()
def evaluate(env, policy):
    return env.step(policy(env.obs))


def update(env, policy):
    loss = clip(policy(env.obs)).sum()
    loss.backward()
