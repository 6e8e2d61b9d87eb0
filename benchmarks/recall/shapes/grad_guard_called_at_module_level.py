"""Shape of the recall cause `grad-guard-called-at-module-level` (benchmarks/recall/first-sight-3.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch

torch.no_grad()  # expect: GL107


def generate(decoder, tokens, steps):
    for _ in range(steps):
        tokens = torch.cat([tokens, decoder(tokens).argmax(-1)[:, -1:]], dim=1)
    return tokens
