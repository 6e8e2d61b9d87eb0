"""Shape of the recall cause `named-submodule-requires-grad-attribute` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Forecaster:
    def __init__(self, net: torch.nn.Module, frozen: list):
        self.net = net
        for name in frozen:
            # looks up a child module by its registered name and "freezes" it
            self.net._modules[name].requires_grad = False  # expect: GL302
