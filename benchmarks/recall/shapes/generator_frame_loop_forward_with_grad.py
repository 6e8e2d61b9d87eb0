"""Shape of the recall cause `generator-frame-loop-forward-with-grad` (benchmarks/recall/first-sight-24.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A video-making tool rebuilds a trained generator from a checkpoint (never
calling eval) and renders one frame per latent vector of a smoothed random
walk; each frame is generated with gradients on and only detached when it is
turned into bytes for the video writer, so every frame records a graph.
"""
import numpy as np
import torch
import torch.nn as nn


class Painter(nn.Module):
    def __init__(self, size=16):
        super().__init__()
        self.size = size
        self.body = nn.Sequential(nn.Linear(8, 3 * size * size), nn.Tanh())

    def forward(self, code):
        return self.body(code).view(-1, 3, self.size, self.size)


def render_walk(checkpoint, steps, write_frame):
    painter = Painter()
    painter.load_state_dict(torch.load(checkpoint))
    codes = torch.cumsum(torch.randn(steps, 8) * 0.1, dim=0)
    for code in codes:
        image = painter(code.unsqueeze(0))  # expect: GL101
        pixels = ((image[0].permute(1, 2, 0) + 1) * 127.5).detach().numpy()
        write_frame(pixels.astype(np.uint8))
