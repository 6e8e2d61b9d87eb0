"""Recall case (kept): a training loop adds the loss tensor to a running total.

The classic leak: ``total_loss += loss`` keeps every iteration's graph
referenced. The per-class list next to it holds numbers and is fine.
"""

import torch.nn as nn


def train(model, loader, optimizer, epochs):
    criterion = nn.CrossEntropyLoss()
    history = []
    for epoch in range(epochs):
        total_loss = 0.0
        per_batch = []
        for images, labels in loader:
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss  # expect: GL301:13
            per_batch.append(loss.item())
        history.append(total_loss / len(loader))
    return history
