"""Recall case: a script whose module-level entry runs one function under no_grad and one without.

``score`` is called nowhere, and the script's module-level code also calls
``report`` with grad on: the entry is not all guarded, so nothing proves that
``score`` runs with grad off, and its evaluation loop is reported.
"""

import torch


def score(model, loader):
    model.eval()
    hits = []
    for x, y in loader:
        hits.append((model(x).argmax(-1) == y).float().mean().item())  # expect: GL101:22
    return sum(hits) / len(hits)


def report(path):
    print(torch.load(path))


with torch.no_grad():
    report("a.pt")
report("b.pt")
