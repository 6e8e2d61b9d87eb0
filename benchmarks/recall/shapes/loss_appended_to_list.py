"""Shape of the recall cause `loss-appended-to-list` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import numpy as np
import torch
import torch.nn as nn

net = nn.Linear(6, 1)
opt = torch.optim.Adam(net.parameters())
bce = nn.BCEWithLogitsLoss()

for epoch in range(2):
    step_losses = []
    for _ in range(5):
        x, y = torch.randn(8, 6), torch.rand(8, 1)
        step_loss = bce(net(x), y)
        step_losses.append(step_loss)  # expect: GL301
        opt.zero_grad()
        step_loss.backward()
        opt.step()
    print(epoch, np.sum([float(v) for v in step_losses]))
