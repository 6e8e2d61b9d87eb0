"""Shape of the recall cause `eval-then-layer-discovery-method-forward` (benchmarks/recall/first-sight-25.toml).

A wrapper module is put in eval mode, then one of its own methods runs the
wrapped network on a sample batch only to discover its structure (which
layer runs last), through forward hooks. Nothing is differentiated, but the
discovery forward records a graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class LastLayerFinder(nn.Module):
    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net
        self.last_name = None

    def forward(self, x):
        return self.net(x)

    def discover(self, x):
        order = []
        handles = [m.register_forward_hook(lambda mod, i, o, n=n: order.append(n))
                   for n, m in self.net.named_modules() if n]
        self.net(x)
        for h in handles:
            h.remove()
        self.last_name = order[-1]


class Approximation:
    def __init__(self, net):
        self.model = LastLayerFinder(net)

    def fit(self, batches):
        self.model.eval()
        x, _ = next(iter(batches))
        self.model.discover(x)  # expect: GL101
        return self.model.last_name


approx = Approximation(nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2)))
print(approx.fit([(torch.randn(3, 4), None)]))
