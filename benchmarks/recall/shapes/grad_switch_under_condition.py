"""Shape of the recall cause `grad-switch-under-condition` (benchmarks/recall, first-sight batch 5).

The script turns autograd off only inside a branch (here: only when CUDA is
there), so on the other path every forward below builds a graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn

if torch.cuda.is_available():
    torch.set_grad_enabled(False)
    torch.backends.cudnn.benchmark = True

net = nn.Sequential(nn.Conv2d(6, 3, 3, padding=1))
net.eval()

frames = [torch.rand(1, 3, 64, 64) for _ in range(8)]
middles = []
for a, b in zip(frames, frames[1:]):
    middles.append(net(torch.cat([a, b], 1)))  # expect: GL1xx
