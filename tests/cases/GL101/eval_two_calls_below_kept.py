"""Precision case: an eval-mode model handed two calls down to a helper whose
graph the callers may want.

``validate_sum`` reaches a helper that sums the losses (``total += loss``),
which a training helper hands back to be differentiated, to a caller the file
does not show; ``finetune`` backpropagates what its chain collects.
"""

import torch


def sum_losses(model, batches):
    total = 0
    for batch in batches:
        loss, _ = model(batch)  # expect-not: GL101
        total += loss
    return total


def sum_chain(model, batches):
    return sum_losses(model, batches) / len(batches)


def validate_sum(model, batches):
    model.eval()
    return sum_chain(model, batches)


def compute_tuned(model, batches):
    losses = []
    for batch in batches:
        loss, _ = model(batch)  # expect-not: GL101
        losses.append(loss)
    return torch.stack(losses)


def gather_tuned(model, batches):
    return compute_tuned(model, batches)


def finetune(model, batches, optimizer):
    model.eval()
    gather_tuned(model, batches).mean().backward()
    optimizer.step()
