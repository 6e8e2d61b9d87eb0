"""Shape of the recall cause `variable-rewrap-cuts-model-output` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn.functional as F


def denoise_step(net, optimizer, noisy, noise):
    pred = net(noisy)
    # meant to "make sure" the prediction requires grad: Variable() copies it
    # into a new leaf, so the loss below no longer reaches net's parameters
    pred = torch.autograd.Variable(pred, requires_grad=True)  # expect: GL002
    loss = F.mse_loss(pred, noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
