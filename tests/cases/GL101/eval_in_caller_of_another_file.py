"""Recall case (first-sight recall batch 11, ConvE's ``ranking_and_hits``): the
training script of the project (``main.py``) puts the model in eval mode and hands
it to ``ranking``, defined here, which scores every batch with ``model.forward``
with gradients on.

Every call of ``ranking`` is in another file, none under no_grad, and each hands
it a model that its caller switched to eval mode with nothing in between that may
train it: the parameter holds an eval-mode module, as a same-file caller shows.

Silent twins: ``score`` is also called in train mode, ``rank_guarded`` under
``torch.no_grad()``, and ``rank_after_tuning`` after a helper that may train it.
"""

import numpy as np


def ranking(model, batches, log):
    ranks = []
    for e1, rel, e2 in batches:
        pred = model.forward(e1, rel)  # expect: GL101:16
        ranks.append(int((pred.argsort(1, descending=True) == e2).nonzero()[0, 1]) + 1)
    log.info("mean rank %s", np.mean(ranks))


def score(model, batches):
    return [model(x).mean().item() for x in batches]  # expect-not: GL101


def rank_guarded(model, batches):
    return [model(x).argmax(1).tolist() for x in batches]  # expect-not: GL101


def rank_after_tuning(model, batches):
    return [model(x).argmax(1).tolist() for x in batches]  # expect-not: GL101
