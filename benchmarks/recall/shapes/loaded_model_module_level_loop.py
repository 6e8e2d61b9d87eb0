"""Shape of the recall cause `loaded-model-module-level-loop` (benchmarks/recall/first-sight-10b.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import glob

import numpy as np
import torch

net = torch.load("checkpoint.pth")["model"]
scores = []
for path in glob.glob("inputs/*.npy"):
    batch = torch.from_numpy(np.load(path)).unsqueeze(0)
    upscaled = net(batch)  # expect: GL101
    scores.append(float(upscaled.mean()))
print(sum(scores) / len(scores))
