"""Recall case: backward spelled other than ``loss.backward()``, through a value
computed under ``no_grad``.

Lightning's ``self.manual_backward(loss)`` and ``torch.autograd.backward(loss)``
run backward from their argument exactly as ``loss.backward()`` does from its
receiver: with no ``grad_fn`` the call raises.
"""

import lightning as L
import torch


class Model(L.LightningModule):
    def training_step(self, batch, batch_idx):
        with torch.no_grad():
            loss = self.net(batch).sum()
        self.manual_backward(loss)  # expect: GL103


def step(net, batch):
    with torch.no_grad():
        loss = net(batch).sum()
    torch.autograd.backward(loss)  # expect: GL103


def fine(net, batch):
    loss = net(batch).sum()
    torch.autograd.backward(loss)  # expect-not: GL103
