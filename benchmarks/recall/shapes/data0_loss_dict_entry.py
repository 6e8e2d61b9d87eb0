"""Shape of the recall cause `data0-loss-dict-entry` (benchmarks/recall, first-sight batch 5).

The 0-dim losses live in a dict filled by another method; each is read back
the PyTorch 0.3 way through `.data[0]`, which raises IndexError today.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn.functional as F


class Detector:
    def __init__(self, net):
        self.net = net
        self._losses = {}

    def _add_losses(self, x, y):
        self._losses["cross_entropy"] = F.cross_entropy(self.net(x), y)
        self._losses["total_loss"] = self._losses["cross_entropy"] * 1.0

    def train_step(self, x, y, opt):
        self._add_losses(x, y)
        ce = self._losses["cross_entropy"].data[0]  # expect: GL003
        total = self._losses["total_loss"].data[0]  # expect: GL003
        opt.zero_grad()
        self._losses["total_loss"].backward()
        opt.step()
        return ce, total
