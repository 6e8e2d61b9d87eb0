"""Shape of the recall cause `global-eval-model-helper-forward-in-module-loop` (benchmarks/recall/first-sight-26.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A script loads a network into a module-level name and puts it in eval mode,
defines a helper that runs that global network on a pair of inputs, and then,
at module level, calls the helper for every consecutive pair of a sequence and
keeps each output in a list: no guard anywhere, so every output holds its graph.
"""
import torch
import torch.nn as nn


def blend(a, b):
    return net(torch.cat([a, b], dim=1))


net = nn.Conv2d(6, 3, 3, padding=1)
net.eval()
frames = [torch.rand(1, 3, 8, 8) for _ in range(5)]
outputs = []
for k in range(len(frames) - 1):
    middle = blend(frames[k], frames[k + 1])  # expect: GL101
    outputs.append(middle)
print(torch.cat(outputs).shape)
