"""Shape of the recall cause `module-children-requires-grad` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn as nn


def trunk(backbone: nn.Module, frozen: bool) -> nn.Sequential:
    layers = list(backbone.children())[:-1]
    if frozen:
        for layer in layers:
            layer.requires_grad = False  # expect: GL302
    return nn.Sequential(*layers)
