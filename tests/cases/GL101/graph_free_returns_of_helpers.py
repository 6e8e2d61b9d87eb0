"""Recall case (first-sight recall batch 6): a helper of the file that a region
hands its eval-mode model to, returning only values with no graph (``.item()``,
``.tolist()``): the caller gets nothing to backpropagate through.

Precision counterpart: a helper that returns the output beside the loss's number
hands the graph to its caller; the caller's own forwards are judged there.
"""

import torch.nn.functional as F


def _batch_metrics(model, x, y):
    out = model(x)  # expect: GL101:11
    return F.cross_entropy(out, y).item(), out.argmax(1).tolist()


def _batch_outputs(model, x, y):
    out = model(x)
    return F.cross_entropy(out, y).item(), out


def evaluate(model, batches):
    model.eval()
    losses, labels = [], []
    for x, y in batches:
        loss, pred = _batch_metrics(model, x, y)
        losses.append(loss)
        labels += pred
        _batch_outputs(model, x, y)
    return sum(losses) / len(losses), labels
