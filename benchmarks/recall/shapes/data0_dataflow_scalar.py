"""Shape of the recall cause `data0-dataflow-scalar` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn.functional as F


def gap(pred, target, lo, hi):
    err = F.smooth_l1_loss(pred, target)
    spread = torch.max(hi) - torch.min(lo)
    return err.data[0], spread.data[0]  # expect: GL003
