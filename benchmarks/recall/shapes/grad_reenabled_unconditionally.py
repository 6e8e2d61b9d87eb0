"""Shape of the recall cause `grad-reenabled-unconditionally` (benchmarks/recall/first-sight-9.toml).

A helper turns autograd off with a bare statement and later turns it back on
with `set_grad_enabled(True)`, whatever mode its caller was in: called under
`torch.no_grad()`, it leaves the thread with gradients enabled.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def iterate(f, g, steps):
    torch.autograd.set_grad_enabled(False)  # expect: GL105
    for _ in range(steps):
        f, g = 0.5 * (f + g), 0.5 * (g - f)
    torch.autograd.set_grad_enabled(True)
    return f + g
