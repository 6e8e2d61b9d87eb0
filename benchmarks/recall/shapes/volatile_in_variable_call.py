"""Shape of the recall cause `volatile-in-variable-call` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.autograd import Variable


def score(net, batches):
    hits = 0
    for x, y in batches:
        x = Variable(x, volatile=True)  # expect: GL001
        hits += int((net(x).argmax(1) == y).sum())
    return hits
