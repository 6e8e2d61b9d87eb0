"""Recall case: a helper returns a tuple of a loss and a number.

``step`` returns the loss tensor and its accuracy as a Python float. Unpacked,
the loss carries the step's graph and the accuracy does not (a precision trap
on the same loop): the running loss keeps every batch's graph, the running
accuracy keeps nothing.
"""

import torch.nn.functional as F


def step(model, optimizer, x, y):
    out = model(x)
    loss = F.cross_entropy(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss, (out.argmax(1) == y).float().mean().item()


def train(model, optimizer, loader):
    running_loss, running_acc = 0.0, 0.0
    for x, y in loader:
        loss, acc = step(model, optimizer, x, y)
        running_loss += loss  # expect: GL301:9
        running_acc += acc  # expect-not: GL301
    return running_loss / len(loader), running_acc / len(loader)
