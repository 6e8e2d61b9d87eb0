"""Recall case: the kept loss is the tensor a backward ran from, though the loop
does not show the backward on that very name.

``train_step`` of the file runs ``scaled.backward()`` and returns ``scaled``
first in its tuple: the caller's ``loss`` is that tensor. After
``loss.backward()``, ``dist.all_reduce(loss)`` and ``loss /= world`` edit the
same tensor in place, which keeps its graph.
"""

import torch.distributed as dist


def train_step(model, batch, accum):
    loss = model(batch).mean()
    scaled = loss / accum
    scaled.backward()
    return scaled, {"loss": loss.item()}


def train(model, batches, optimizer, accum):
    epoch_loss = 0.0
    for step, batch in enumerate(batches):
        loss, meta = train_step(model, batch, accum)
        epoch_loss += loss  # expect: GL301:9
        if (step + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
    return float(epoch_loss)


def train_distributed(model, loader, optimizer, world):
    losses = []
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        dist.all_reduce(loss)
        loss /= world
        losses.append(loss)  # expect: GL301:9
    return sum(losses) / len(losses)
