"""Shape of the recall cause `variable-not-imported` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch

from .helpers import *  # brings Variable in from torch.autograd


def step(decoder, seq):
    seq = Variable(seq, volatile=True)  # expect: GL001
    return decoder(seq)
