"""Recall case (kept): a library function switches gradients off for its caller's thread.

A module of a package, with no ``__main__`` block: whoever calls ``predict``
between training steps finds autograd off afterwards.
"""

import torch


def predict(model, images, threshold=0.5):
    torch.set_grad_enabled(False)  # expect: GL105:5
    model.eval()
    probs = torch.sigmoid(model(images))
    return (probs > threshold).long()


def predict_scoped(model, images, threshold=0.5):
    with torch.set_grad_enabled(False):
        probs = torch.sigmoid(model(images))
    return (probs > threshold).long()
