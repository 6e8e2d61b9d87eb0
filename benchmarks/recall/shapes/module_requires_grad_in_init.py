"""Shape of the recall cause `module-requires-grad-in-init` (benchmarks/recall/first-sight-10a.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Normalize(nn.Conv2d):
    def __init__(self, mean, std):
        super().__init__(3, 3, kernel_size=1)
        self.weight.data = torch.diag(1.0 / torch.tensor(std)).view(3, 3, 1, 1)
        self.bias.data = -torch.tensor(mean) / torch.tensor(std)
        # meant to freeze the fixed weights: sets an attribute, freezes nothing
        self.requires_grad = False  # expect: GL302


class FeatureLoss(nn.Module):
    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.features = nn.Sequential(*list(backbone.children())[:4])
        self.features.requires_grad = False  # expect: GL302
        self.norm = Normalize((0.5, 0.5, 0.5), (0.2, 0.2, 0.2))

    def forward(self, x, y):
        return nn.functional.l1_loss(self.features(self.norm(x)), self.features(self.norm(y)))
