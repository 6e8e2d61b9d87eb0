"""Recall case: ``.eval()`` in the caller, the loop in a helper of the same file.

``validate`` puts the model in eval mode and hands it to ``_run_batches``,
which runs the forwards with gradients enabled. Reported at the forward in
the helper.
"""

import torch


def _run_batches(model, loader):
    predictions = []
    for images, _ in loader:
        predictions.append(model(images).argmax(1))  # expect: GL101:28
    return torch.cat(predictions)


def validate(model, loader, targets):
    model.eval()
    predictions = _run_batches(model, loader)
    return (predictions == targets).float().mean().item()
