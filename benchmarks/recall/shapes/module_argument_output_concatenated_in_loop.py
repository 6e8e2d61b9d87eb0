"""Shape of the recall cause `module-argument-output-concatenated-in-loop` (benchmarks/recall/first-sight-24.toml).

An analysis helper receives a layer as an argument, runs it on one group of
inputs after another with gradients on, and concatenates a statistic built
from each group's output onto a running tensor, so every group's graph stays
referenced until the helper returns; the statistics only feed plots.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def mean_active_response(layer, groups):
    units = layer.weight.size(0)
    stats = torch.zeros((units, 0))
    for inputs in groups:
        out = layer(inputs)  # expect: GL1xx
        winners = out == out.max(dim=1, keepdim=True).values
        mean_j = (out * winners).sum(dim=0) / winners.sum(dim=0).clamp(min=1)
        stats = torch.cat((stats, mean_j.unsqueeze(1)), dim=1)  # expect: GL301
    return stats


print(mean_active_response(torch.nn.Linear(6, 4), [torch.randn(5, 6) for _ in range(3)]).shape)
