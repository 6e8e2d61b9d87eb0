"""Recall case: a sharpness-aware optimizer's `step` is decorated
`@torch.no_grad()` and means to re-enable gradients for the closure's forward
and backward between its two half-steps; `torch.enable_grad()(closure)` only
wraps the closure and drops the wrapper, so the closure never runs.
"""

import torch


class SAM(torch.optim.Optimizer):
    @torch.no_grad()
    def step(self, closure=None):
        self.first_step()
        torch.enable_grad()(closure)  # expect: GL107:9
        self.second_step()

    def first_step(self):
        pass

    def second_step(self):
        pass
