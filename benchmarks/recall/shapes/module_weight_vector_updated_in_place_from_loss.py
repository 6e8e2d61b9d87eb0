"""Shape of the recall cause `module-weight-vector-updated-in-place-from-loss` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn
from torch.nn.parameter import Parameter


class HedgeNet(nn.Module):
    def __init__(self, n_in, n_heads, n_classes, beta=0.99):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(n_in, n_classes) for _ in range(n_heads))
        self.beta = beta
        # per-head mixing weights kept on the module, never trained by autograd
        self.alpha = Parameter(torch.full((n_heads,), 1.0 / n_heads), requires_grad=False)

    def update_weights(self, x, y):
        losses = [nn.functional.cross_entropy(h(x), y) for h in self.heads]
        for i, loss in enumerate(losses):
            loss.backward(retain_graph=True)
        # hedge update outside no_grad: the in-place edits record every loss's graph on the
        # kept weights (a Parameter with requires_grad=False), and each call's graph stays
        # alive after the weights are re-wrapped
        for i, loss in enumerate(losses):
            self.alpha[i] *= torch.pow(self.beta, loss)  # expect: GL301
            self.alpha[i] = torch.max(self.alpha[i], torch.tensor(0.05))  # expect: GL301
        self.alpha = Parameter(self.alpha / self.alpha.sum(), requires_grad=False)
