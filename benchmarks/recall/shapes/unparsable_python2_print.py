"""Shape of the recall cause `unparsable-python2-print` (benchmarks/recall/first-sight-7.toml).

A Python 2 file: its print statements do not parse as Python 3, so nothing
in it is read, including the 0.3 idioms beside them.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn.functional as F


def train(net, loader, opt, logger):
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print "step %d" % step
        logger.log_value("train loss", loss.data[0], step)  # expect: GL003
