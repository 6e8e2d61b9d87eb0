"""Shape of the recall cause `negated-grad-guard` (benchmarks/recall/first-sight-18.toml).

A grad guard is negated inside the with-statement: `not torch.no_grad()` is
the bool False, which is not a context manager, so entering it raises and no
evaluation ever runs.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def evaluate(model, examples):
    model.eval()
    hits = 0
    with not torch.no_grad():  # expect: GL1xx
        for x, y in examples:
            hits += int(model(x).argmax() == y)
    return hits / max(len(examples), 1)
