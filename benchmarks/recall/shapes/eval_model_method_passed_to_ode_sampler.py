"""Shape of the recall cause `eval-model-method-passed-to-ode-sampler` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def solve(fn, x, steps=8):
    for i in range(steps):
        x = x + fn(x, torch.full((x.shape[0],), i / steps)) / steps
    return x


def periodic_preview(net, noise):
    net.eval()
    drift = net.forward
    return solve(drift, noise)  # expect: GL101
