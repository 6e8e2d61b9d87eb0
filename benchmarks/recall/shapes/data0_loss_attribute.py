"""Shape of the recall cause `data0-loss-attribute` (benchmarks/recall/first-sight-7.toml).

The 0-dim losses are stored as attributes by the update methods; other
methods read them back the PyTorch 0.3 way through `.data[0]`, which raises
IndexError today.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from collections import OrderedDict

import torch.nn as nn


class Trainer:
    def __init__(self, netd):
        self.netd = netd
        self.bce = nn.BCELoss()
        self.err_d = None

    def update_netd(self, x, label, opt):
        self.err_d = self.bce(self.netd(x), label)
        self.err_d.backward()
        opt.step()

    def optimize(self, x, label, opt):
        self.update_netd(x, label, opt)
        if self.err_d.data[0] < 1e-5:  # expect: GL003
            self.netd.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)

    def get_errors(self):
        return OrderedDict([("err_d", self.err_d.data[0])])  # expect: GL003
