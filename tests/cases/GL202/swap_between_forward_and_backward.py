"""Recall case: parameters swapped through ``.data`` after the forward and before its backward.

The loss was computed with the original weights and its graph saved them; the
noisy weights are swapped in before ``backward()``, which then computes the
gradients with values the forward never used, silently.
"""

import torch


def noisy_weight_step(model, criterion, x, y, sigma, optimizer):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    for name, p in model.named_parameters():
        p.data = p.data + sigma * torch.randn_like(p)  # expect-preview: GL202:9
    model.head.weight.data = model.head.weight.data.clamp(-1, 1)  # expect-preview: GL202:5
    loss.backward()
    optimizer.step()
