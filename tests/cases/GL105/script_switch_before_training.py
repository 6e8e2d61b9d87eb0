"""Recall case (kept): a script function switches gradients off, and training follows.

The ``__main__`` block calls ``evaluate_baseline`` and then ``train``: the
switch outlives the evaluation and the training's ``backward()`` fails. An
entry point is only the block's last call (see the script policy).
"""

import torch
import torch.nn.functional as F


def evaluate_baseline(model, loader):
    torch.set_grad_enabled(False)  # expect: GL105:5
    model.eval()
    return sum(F.cross_entropy(model(x), y).item() for x, y in loader) / len(loader)


def train(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


if __name__ == "__main__":
    from setup import loader, model, optimizer

    print("baseline", evaluate_baseline(model, loader))
    train(model, loader, optimizer)
