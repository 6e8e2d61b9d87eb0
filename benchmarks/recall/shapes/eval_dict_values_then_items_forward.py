"""Shape of the recall cause `eval-dict-values-then-items-forward` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


def compare_models(models, images):
    # every model of the mapping is switched to eval mode by iterating its values
    for net in models.values():
        net.eval()
    table = {}
    for image in images:
        for label, net in models.items():
            scores = net.forward(image.unsqueeze(0))  # expect: GL101
            table.setdefault(label, []).append(scores.argmax(-1).item())
    return table


print(compare_models({"small": nn.Linear(4, 3), "large": nn.Linear(4, 3)}, torch.randn(5, 4)))
