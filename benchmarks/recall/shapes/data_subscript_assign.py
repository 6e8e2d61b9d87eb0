"""Shape of the recall cause `data-subscript-assign` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def normalise(delta, mean, std):
    delta = torch.tanh(delta)
    for c in range(3):
        delta.data[:, c] = (delta.data[:, c] - mean[c]) / std[c]  # expect: GL202
    return delta


def perturb(generator, noise, mean, std):
    return normalise(generator(noise), mean, std)
