"""Shape of the recall cause `data0-loss-summed-from-helper-returns` (benchmarks/recall/first-sight-21.toml).

The 0-dim loss is summed across time steps from values that helper objects
return, backpropagated, and reported the PyTorch 0.3 way through `.data[0]`,
which raises IndexError today.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn as nn


class Critic:
    def __init__(self):
        self.crit = nn.MSELoss()

    def feed(self, value, target):
        return self.crit(value, target)


def total(acc, term):
    return term if acc is None else acc + term


class Updater:
    def __init__(self):
        self.critic = Critic()

    def update(self, net, steps, log):
        err = None
        for x, target in steps:
            err = total(err, self.critic.feed(net(x), target))
        log.append(err.data[0] / len(steps))  # expect: GL003
        err.backward()
