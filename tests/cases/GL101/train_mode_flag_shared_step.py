"""Recall case: a step that trains and evaluates, `model.train(mode=flag)`, the
flag false for a call of the file made with gradients on, and the backward only
under `if flag:` (a speech-enhancement trainer's `run_epoch`, called from a
`main` that loguru's `logger.catch` decorates, which leaves grad mode alone).
The output of `predict`, called only with the flag false, goes nowhere; a
trainer's method `epoch` is called as `self.epoch(valid, split="val")`.
"""

import torch
from loguru import logger


def run_epoch(net, batches, split, optimizer):
    training = split == "train"
    net.train(mode=training)
    total = 0.0
    for x, y in batches:
        out = net(x)  # expect: GL101:15
        loss = torch.nn.functional.mse_loss(out, y)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.item()
    return total


@logger.catch
def fit(net, train_batches, valid_batches, optimizer):
    for _ in range(10):
        run_epoch(net, train_batches, "train", optimizer)
        run_epoch(net, valid_batches, split="valid", optimizer=optimizer)


def predict(model, x, train):
    model.train(train)
    return model(x)  # expect: GL101:12


def demo(model, batches):
    for x, _ in batches:
        predict(model, x, False)


class Trainer:
    def epoch(self, batches, split="train"):
        is_train = split == "train"
        self.model.train(is_train)
        for x, y in batches:
            loss = (self.model(x) - y).pow(2).mean()  # expect: GL101:21
            if is_train:
                loss.backward()
                self.opt.step()

    def fit(self, train, valid):
        self.epoch(train)
        self.epoch(valid, split="val")
