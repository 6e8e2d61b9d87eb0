"""Shape of the recall cause `freeze-loop-sets-requires-grad-true` (benchmarks/recall/first-sight-22.toml).

A loop meant to freeze a pretrained backbone (its comment says so) writes
`requires_grad = True` on every parameter, so nothing is frozen and the
optimizer, built over all parameters, trains the whole network.
Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn as nn
import torch.optim as optim


def build_frozen_classifier(backbone: nn.Module, width: int, classes: int):
    # step 1: freeze the feature extractor
    for weight in backbone.parameters():
        weight.requires_grad = True  # expect: GL3xx
    head = nn.Linear(width, classes)
    model = nn.Sequential(backbone, head)
    opt = optim.SGD(model.parameters(), lr=0.01)
    return model, opt
