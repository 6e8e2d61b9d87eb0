"""Shape of the recall cause `optimizer-step-outside-no-grad` (benchmarks/recall/first-sight-17.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.optim import Optimizer


class MomentumSGD(Optimizer):
    def __init__(self, params, lr=0.1, momentum=0.9, weight_decay=1e-4):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                d_p.add_(p, alpha=group["weight_decay"])  # expect: GL2xx
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.clone(d_p).detach()
                else:
                    state["buf"].mul_(group["momentum"]).add_(d_p)  # expect: GL301
                p.data.add_(state["buf"], alpha=-group["lr"])
