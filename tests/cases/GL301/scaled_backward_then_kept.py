"""Recall case: the loop runs backward from a scaled loss and keeps the loss itself.

``scaler.scale(loss).backward()`` and ``(loss / accum).backward()`` run backward
from the loss's graph, which proves that ``loss`` carries one; adding it to an
epoch total or a list keeps every step's graph nodes referenced.
"""

import torch


def train_amp(model, loader, optimizer, criterion):
    scaler = torch.cuda.amp.GradScaler()
    epoch_loss = 0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        epoch_loss += loss  # expect: GL301:9
    print(f"epoch loss {epoch_loss / len(loader):.4f}")


def train_accumulated(model, loader, optimizer, accum=4):
    losses = []
    for step, (x, y) in enumerate(loader):
        loss = model.loss(x, y)
        (loss / accum).backward()
        if (step + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
        losses.append(loss)  # expect: GL301:9
    return sum(l.item() for l in losses) / len(losses)
