"""Shape of the recall cause `loss-dict-items` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from collections import defaultdict


def train(model, opt, loader, criterion):
    sums = defaultdict(float)
    for x, y in loader:
        parts = criterion(model(x), y)
        sum(parts.values()).backward()
        opt.step()
        for name, value in parts.items():
            sums[name] += value * len(x)  # expect: GL301
    return sums
