"""Shape of the recall cause `module-eval-model-forward-in-ui-callback` (benchmarks/recall/first-sight-24.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A demo script builds a network at module level, loads its weights and puts it
in eval mode there; the per-request handler that a web UI calls for every
uploaded picture runs the global network with gradients on and only reads
plain numbers out of the result, so every request records a graph nobody uses.
"""
import numpy as np
import torch
import torch.nn as nn

detector = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 5, 1))
detector.load_state_dict(torch.load("detector.pth"))
detector.eval()


def handle_upload(picture):
    pixels = torch.from_numpy(np.asarray(picture, dtype=np.float32) / 255.0)
    pixels = pixels.permute(2, 0, 1).unsqueeze(0)
    heat = detector(pixels)  # expect: GL101
    peak = heat.amax(dim=(2, 3)).squeeze(0)
    return [round(float(v), 3) for v in peak]


class FakeUI:
    def __init__(self, fn):
        self.fn = fn

    def launch(self):
        return self.fn(np.zeros((32, 32, 3)))


FakeUI(fn=handle_upload).launch()
