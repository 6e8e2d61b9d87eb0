"""Shape of the recall cause `unparsable-async-keyword` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.autograd import Variable


def check(net, crit, loader):
    for x, y in loader:
        y = y.cuda(async=True)
        x = Variable(x.cuda(), volatile=True)  # expect: GL001
        loss = crit(net(x), y)
        print(loss.data[0])  # expect: GL003
