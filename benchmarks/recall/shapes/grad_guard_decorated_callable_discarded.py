"""Shape of the recall cause `grad-guard-decorated-callable-discarded` (benchmarks/recall/first-sight-26.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A grad-mode guard is applied to a callable as a decorator would be, on a line
of its own, and the wrapped callable it returns is dropped: the guard is never
entered and the callable never runs.
"""
import torch


class TwoPhaseUpdater:
    def __init__(self, params, lr=0.1):
        self.params = list(params)
        self.lr = lr

    @torch.no_grad()
    def update(self, recompute):
        for p in self.params:
            if p.grad is not None:
                p.add_(p.grad, alpha=self.lr)
        torch.enable_grad()(recompute)  # expect: GL107
        for p in self.params:
            if p.grad is not None:
                p.sub_(p.grad, alpha=2 * self.lr)
