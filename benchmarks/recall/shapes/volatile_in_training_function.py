"""Shape of the recall cause `volatile-in-training-function` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.autograd import Variable


def fit(net, opt, batches, holdout):
    for x, y in batches:
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        opt.step()
    probe = Variable(holdout, volatile=True)  # expect: GL001
    return net(probe).mean().item()
