"""Shape of the recall cause `volatile-flag-parameter` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.autograd import Variable


def as_inputs(batch, volatile=False):
    return Variable(batch[0], volatile=volatile), Variable(batch[1], volatile=volatile)


def check(net, loader):
    for batch in loader:
        x, y = as_inputs(batch, volatile=True)  # expect: GL0xx
        print(net(x).sum().item())
