"""Shape of the recall cause `statistic-update-callback-with-grad` (benchmarks/recall, first-sight batch 6).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class RunningSum:
    """Sums a quantity that a callback computes from the latest forward, batch after batch."""

    def __init__(self, compute):
        self._compute = compute
        self.total = None
        self.count = 0

    def refresh(self):
        value, n = self._compute()
        if self.total is None:
            self.total = value  # expect: GL301
        else:
            self.total += value  # expect: GL301
        self.count += n


layer = nn.Linear(4, 3)
seen = {}


def capture(module, inputs, output):
    seen["out"] = output


layer.register_forward_hook(capture)
second_moment = RunningSum(lambda: (torch.einsum("bi,bj->ij", seen["out"], seen["out"]), seen["out"].size(0)))

for _ in range(5):
    layer(torch.randn(8, 4))
    second_moment.refresh()
print(second_moment.total / second_moment.count)
