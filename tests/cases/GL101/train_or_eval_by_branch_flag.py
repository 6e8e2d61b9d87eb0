"""Recall case: `if flag: m.train() else: m.eval()` is `m.train(flag)` spelled as a
branch, so the flag's region starts after the `if` when a call of the file makes
the flag false. A forecaster's `predict(x, mc=False)` switches to train mode for
Monte Carlo dropout and to eval mode otherwise, then runs its network on every
batch with gradients on; `evaluate` calls it with the default. A shared epoch
runs the backward only under `if training:` and is called for validation with
`training=False`, the negated spelling too.
"""

import numpy as np
import torch


class Forecaster:
    def predict(self, x, mc=False, batch_size=32):
        if mc:
            self.net.train()
        else:
            self.net.eval()
        outputs = []
        for batch in torch.split(x, batch_size):
            outputs.append(self.net(batch).detach().numpy())  # expect: GL101:28
        return np.concatenate(outputs)

    def evaluate(self, x, y):
        yhat = self.predict(x)
        return float(((yhat - y.numpy()) ** 2).mean())

    def sample(self, x):
        return [self.predict(x, mc=True) for _ in range(10)]


def run_epoch(model, loader, optimizer, training):
    if not training:
        model.eval()
    else:
        model.train()
    total = 0.0
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)  # expect: GL101:45
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.item()
    return total


def fit(model, train_loader, val_loader, optimizer):
    for _ in range(5):
        run_epoch(model, train_loader, optimizer, True)
        run_epoch(model, val_loader, optimizer, training=False)
