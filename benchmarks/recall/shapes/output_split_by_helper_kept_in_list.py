"""Shape of the recall cause `output-split-by-helper-kept-in-list` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


def split_rows(out):
    # in the project this helper sits in a utility module
    return list(out.unbind(0))


def predict_all(batches):
    model = nn.Linear(3, 1)
    model.eval()
    kept = []
    for x in batches:
        x.requires_grad_(True)
        energy = model(x)  # the forces need autograd, so grad stays on
        kept.extend(split_rows(energy))  # expect: GL301
    return kept


print(len(predict_all([torch.randn(4, 3)])))
