"""Shape of the recall cause `eval-then-conditional-wrapper-forward` (benchmarks/recall/first-sight-11c.toml).

The evaluation function puts the model in eval mode and then runs it through a
name that is either the model or a `DataParallel` wrapper of it, chosen by a
conditional expression, with gradients enabled.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn as nn


def evaluate(model, criterion, batches, batch_size):
    model.eval()
    total = 0.0
    for data, targets in batches:
        net = nn.DataParallel(model) if batch_size > 10 else model
        output = net(data)  # expect: GL101
        total += criterion(output, targets).item()
    return total / len(batches)
