"""Shape of the recall cause `eval-network-passed-to-engine-module-call` (benchmarks/recall/first-sight-26.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A script puts a wrapper's inner network in eval mode and then calls a second
module of the wrapper (a reconstruction engine) with that network as a keyword
argument; the engine queries the network over a grid of points, with gradients
on, to extract a surface that is only saved.
"""
import torch
import torch.nn as nn


class Engine(nn.Module):
    def forward(self, netG, points):
        return torch.cat([netG(p) for p in points.split(64)])


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.netG = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
        self.engine = Engine()


if __name__ == "__main__":
    wrapper = Wrapper()
    wrapper.netG.eval()
    for scan in range(3):
        grid = torch.rand(256, 3)
        sdf = wrapper.engine(netG=wrapper.netG, points=grid)  # expect: GL101
        print(scan, float(sdf.mean()))
