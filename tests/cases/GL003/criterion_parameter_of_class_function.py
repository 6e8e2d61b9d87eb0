"""Recall case: ``losstensor.data[0]`` on the output of a criterion passed in as a
parameter of a function kept in a class and called through the class
(``Trainer.epoch_val(model, loader, loss)``, recall batch 10's CheXNet trainer).

Called through its own class, the function binds no instance: its parameters
take the arguments from the first one, so ``loss`` is the ``nn.BCELoss()``
that ``train`` builds, whose default reduction gives a 0-dim tensor.
Precision: ``Scorer.score`` is handed a Python function returning a float;
``scorer.rank(...)``, called on an instance, passes its loss module for
``pred`` (the parameter after ``self``), not for ``metric``.
"""

import torch


class Trainer:
    def train(model, loader_train, loader_val, optimizer, epochs):
        loss = torch.nn.BCELoss(size_average=True)
        for epoch in range(epochs):
            Trainer.epoch_train(model, loader_train, optimizer, loss)
            value = Trainer.epoch_val(model, loader_val, loss)
            print(epoch, value)

    def epoch_train(model, loader, optimizer, loss):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss(model(x), y).backward()
            optimizer.step()

    def epoch_val(model, loader, loss):
        total = 0
        for x, y in loader:
            losstensor = loss(model(x), y)
            total += losstensor.data[0]  # expect: GL003:22
        return total


def hamming(a, b):
    return float((a != b).sum()) / len(a)


class Scorer:
    def score(pred, target, metric):
        value = metric(pred, target)
        return value.data[0]  # expect-not: GL003

    def rank(self, pred, target, metric):
        value = metric(pred, target)
        return value.data[0]  # expect-not: GL003


def evaluate(pred, target):
    scorer = Scorer()
    return Scorer.score(pred, target, hamming), scorer.rank(torch.nn.MSELoss(), target, hamming)
