"""Shape of the recall cause `model-closure-passed-to-odeint-sample` (benchmarks/recall/first-sight-22.toml).

A flow model's sample() wraps the network in a local closure and hands it to
an ODE solver (torchdiffeq's odeint) with gradients on: the solver calls the
network at every step on the previous step's state, so the whole trajectory's
graph is kept until the sample is returned. No eval() and no backward.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch import nn
from torchdiffeq import odeint


class Flow(nn.Module):
    def __init__(self, net, shape):
        super().__init__()
        self.net = net
        self.shape = shape

    def sample(self, n=4, steps=16):
        def velocity(t, x):
            return self.net(x, t)  # expect: GL1xx

        noise = torch.randn((n, *self.shape))
        times = torch.linspace(0.0, 1.0, steps)
        return odeint(velocity, noise, times)[-1]
