"""Recall case (kept): models kept in a dict or list, put in eval mode item by
item and run item by item in later loops (first-sight batch 18's
lightning-pose `fiftyone_plotting_utils.py`).

`for m in models.values(): m.eval()` (or `for m in nets:`) switches every item;
`m` bound by a later loop over the same container (`.items()`, `.values()` or
the list itself) is one of them. A loop that calls `m.train()` on the items
ends the region, and a loop over another container runs other models.
"""

import torch


def evaluate_models(best_models, images, train_loader, opt):
    for model in best_models.values():
        model.eval()
    for img in images:
        for name, model in best_models.items():
            pred = model.forward(img)  # expect: GL101
            print(name, pred.detach().numpy().reshape((1, -1, 2)))
    for model in best_models.values():
        model.train()
    for x, y in train_loader:
        for name, model in best_models.items():
            loss = model(x).sum()  # expect-not: GL101
            loss.backward()
        opt.step()


def evaluate_list(nets, others, loader):
    for net in nets:
        net.eval()
    scores = []
    for x in loader:
        for net in nets:
            scores.append(net(x).argmax(1).tolist())  # expect: GL101
        for other in others:
            print(other(x).argmax(1).tolist())  # expect-not: GL101
    return scores
