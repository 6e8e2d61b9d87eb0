"""Recall case (kept): validation accumulates losses and outputs with their graphs.

No ``torch.no_grad()`` here: each batch's forward records a graph, and the sum
and the list keep all of them alive until the function returns.
"""

import torch
import torch.nn.functional as F


def validate(model, val_loader):
    model.eval()
    val_loss = 0.0
    all_logits = []
    for inputs, targets in val_loader:
        logits = model(inputs)
        val_loss += F.cross_entropy(logits, targets)  # expect-preview: GL301:9
        all_logits.append(logits)  # expect-preview: GL301:9
    preds = torch.cat(all_logits).argmax(1)
    return val_loss.item() / len(val_loader), preds
