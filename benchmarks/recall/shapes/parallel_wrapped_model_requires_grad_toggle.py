"""Shape of the recall cause `parallel-wrapped-model-requires-grad-toggle` (benchmarks/recall/first-sight-20.toml).

A training loop means to run some extra forwards with every weight frozen
except one learned tensor, so it switches `requires_grad` off on the
(DataParallel-wrapped) model before those forwards and back on after them.
Writing the flag on the module only sets a Python attribute: every parameter
keeps requiring gradients, and the backward reaches all the weights.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8))
prompt = nn.Parameter(torch.zeros(1, 8))
wrapped = nn.DataParallel(net)


def step(history, x, y, opt):
    opt.zero_grad()
    wrapped.requires_grad = False  # expect: GL302
    prompt.requires_grad = True
    carry = prompt
    for h in history:
        carry = wrapped(h + carry)
    wrapped.requires_grad = True  # expect: GL302
    loss = nn.functional.mse_loss(wrapped(x + carry), y)
    loss.backward()
    opt.step()
    return loss.item()
