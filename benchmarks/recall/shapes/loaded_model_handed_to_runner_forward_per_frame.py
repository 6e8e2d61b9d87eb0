"""Shape of the recall cause `loaded-model-handed-to-runner-forward-per-frame` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The script builds the network, loads its trained weights and hands it to a
small runner object; the runner calls it once per frame with gradients on
(and never switches it to eval mode), only to turn the output into numpy.
"""
import numpy as np
import torch
import torch.nn as nn


class FrameRunner:
    def __init__(self, model):
        self.model = model

    def run_frame(self, frame):
        out = self.model(torch.from_numpy(frame))  # expect: GL101
        return out.detach().cpu().numpy()

    def run_all(self, frames):
        return [self.run_frame(f) for f in frames]


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    net.load_state_dict(torch.load("weights.pt"))
    runner = FrameRunner(net)
    print(len(runner.run_all([np.random.rand(3, 8).astype(np.float32)] * 5)))
