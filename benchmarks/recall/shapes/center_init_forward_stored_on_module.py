"""Shape of the recall cause `center-init-forward-stored-on-module` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Inner(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(d, 8), torch.nn.ReLU())
        self.center = None

    def init_center(self, data):
        feats = self.net(data)  # expect: GL101
        self.center = feats.mean(dim=0)
        self.center[self.center.abs() < 0.1] = 0.1
