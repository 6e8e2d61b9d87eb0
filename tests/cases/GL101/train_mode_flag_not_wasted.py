"""Precision case: `model.train(mode=flag)` in a shared train/eval step where the
eval path records nothing or needs its graph: the false call under `no_grad()`, a
`set_grad_enabled(flag)` guard, a backward on both paths, a flag that no call of
the file makes false.
"""

import torch


def epoch(net, batches, split, optimizer):
    training = split == "train"
    net.train(mode=training)
    for x, y in batches:
        loss = torch.nn.functional.mse_loss(net(x), y)  # expect-not: GL101
        if training:
            loss.backward()
            optimizer.step()


def fit(net, train_batches, valid_batches, optimizer):
    epoch(net, train_batches, "train", optimizer)
    with torch.no_grad():
        epoch(net, valid_batches, "valid", optimizer)


def guarded(model, x, y, train=True):
    model.train(train)
    with torch.set_grad_enabled(train):
        out = model(x)  # expect-not: GL101
    loss = (out - y).pow(2).mean()
    if train:
        loss.backward()
    return loss.item()


def always_backward(model, x, y, train):
    model.train(train)
    loss = (model(x) - y).pow(2).mean()  # expect-not: GL101
    loss.backward()
    return loss.item()


def never_false(model, x, y, train):
    model.train(train)
    loss = (model(x) - y).pow(2).mean()  # expect-not: GL101
    if train:
        loss.backward()
    return loss.item()


def loops(model, data):
    for x, y in data:
        guarded(model, x, y, False)
        always_backward(model, x, y, False)
        never_false(model, x, y, True)
