"""Shape of the recall cause `eval-then-loop` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def check(model, loader):
    model.eval()
    right = 0
    for x, y in loader:
        right += (model(x).argmax(1) == y).sum().item()  # expect: GL101
    return right
