"""Recall case: inference functions with no ``.eval()`` of their own.

``evaluate`` and ``validate`` are named for inference, run forwards with
gradients enabled, and their outputs never escape with a graph (they end in
``.item()`` and in metrics). The caller is responsible for ``eval()``; the
graphs are recorded all the same.
"""

import torch.nn.functional as F


def evaluate(model, loader):
    correct, total = 0, 0
    for images, labels in loader:
        outputs = model(images)  # expect-preview: GL101:19
        correct += (outputs.argmax(1) == labels).sum().item()
        total += labels.size(0)
    return correct / total


def validate(net, val_loader):
    losses = []
    for batch in val_loader:
        logits = net(batch["input_ids"])  # expect-preview: GL101:18
        losses.append(F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten()).item())
    return sum(losses) / len(losses)
