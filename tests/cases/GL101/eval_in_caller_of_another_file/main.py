import logging

import torch

from eval_in_caller_of_another_file import rank_after_tuning, rank_guarded, ranking, score
from model import ConvE

log = logging.getLogger(__name__)


def tune(model, batches):
    model.train()
    for x, y in batches:
        model(x).sub(y).pow(2).mean().backward()


def main(train_batches, dev_batches, epochs):
    model = ConvE()
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(epochs):
        model.train()
        print(score(model, dev_batches))
        for x, y in train_batches:
            opt.zero_grad()
            model(x).sub(y).pow(2).mean().backward()
            opt.step()
        model.eval()
        ranking(model, dev_batches, log)
        if epoch % 3 == 0:
            ranking(model, dev_batches, log)
        print(score(model, dev_batches))
        with torch.no_grad():
            rank_guarded(model, dev_batches)
        tune(model, train_batches)
        rank_after_tuning(model, dev_batches)
