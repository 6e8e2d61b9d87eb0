"""Shape of the recall cause `loss-data-sum-index-zero` (benchmarks/recall/first-sight-3.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn.functional as F


def evaluate(model, batches):
    total = 0
    for x, y in batches:
        total += len(x) * F.cross_entropy(model(x), y).data
    return total[0] / len(batches)  # expect: GL003
