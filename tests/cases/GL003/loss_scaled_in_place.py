"""Recall case: a 0-dim loss scaled in place before it is read the 0.3 way.

``kl /= n`` edits the tensor in place, which never changes its shape: ``kl``
is still the 0-dim sum, and so is ``loss``, a functional loss plus it (the
shape is proven by torch, not by the names).
"""

import torch
from torch.nn import functional


def step(x, recon, mu, logvar, n):
    bce = functional.binary_cross_entropy(recon, x)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    kl /= n * 784
    loss = bce + kl
    loss.backward()
    return loss.data[0]  # expect: GL003:12


def rows(x, n):
    out = torch.softmax(x, 1)
    out /= n
    return out.data[0]  # expect-not: GL003
