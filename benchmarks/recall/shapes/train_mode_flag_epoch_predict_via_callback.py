"""Shape of the recall cause `train-mode-flag-epoch-predict-via-callback` (benchmarks/recall/first-sight-24.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
A small learner runs one epoch for training or for validation depending on a
flag: it calls model.train(flag), and each batch's forward is reached through
a hook (a method that a subclass overrides, or a callback looked up by name).
fit() runs the validation epoch (flag False, so the model is in eval mode)
with autograd on, and only reads the outputs for metrics.
"""
import torch
from torch import nn


class Trainer:
    def __init__(self, net, train_batches, valid_batches, lr=0.1):
        self.net = net
        self.batches = {True: train_batches, False: valid_batches}
        self.opt = torch.optim.SGD(net.parameters(), lr=lr)
        self.seen = []

    def forward_hook(self):
        raise NotImplementedError

    def run_epoch(self, training):
        self.net.train(training)
        for self.x, self.y in self.batches[training]:
            self.forward_hook()
            self.loss = nn.functional.mse_loss(self.out, self.y)
            if self.net.training:
                self.loss.backward()
                self.opt.step()
                self.opt.zero_grad()
            self.seen.append(self.loss.item())

    def fit(self, epochs):
        for _ in range(epochs):
            self.run_epoch(True)
            self.run_epoch(False)


class PlainTrainer(Trainer):
    def forward_hook(self):
        self.out = self.net(self.x)  # expect: GL101


data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]
PlainTrainer(nn.Linear(3, 1), data, data).fit(1)
