"""Shape of the recall cause `eval-then-single-forward` (benchmarks/recall/first-sight-3.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 16), nn.Sigmoid())

    def forward(self, spec):
        return self.net(spec)


def run(path, spec):
    model = Denoiser()
    model.load_state_dict(torch.load(path))
    model.eval()
    mask = model(spec)  # expect: GL101
    return (spec * mask).detach().numpy()
