"""Shape of the recall cause `validation-loop-reuses-train-batch-helper-unguarded` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A trainer's validation pass reuses the per-module helper's train_batch method,
which runs the network and returns the loss, on every validation batch; unlike
the training loop it never calls backward and only logs the loss values, yet
nothing turns gradients off, so every validation batch records a full graph.
The network is never put in eval mode, and the forward itself happens inside
the helper, out of sight of the validation function.
"""
import torch
import torch.nn as nn


class Helper:
    def __init__(self, net):
        self.net = net

    def train_batch(self, batch):
        out = self.net(batch["x"])
        return {"loss": nn.functional.mse_loss(out, batch["y"], reduction="none").mean(dim=1)}


class Trainer:
    def __init__(self, net, loader, opt):
        self.helper = Helper(net.train())
        self.loader = loader
        self.opt = opt

    def train(self):
        for batch in self.loader:
            logs = self.helper.train_batch(batch)
            logs["loss"].mean().backward()
            self.opt.step()
            self.opt.zero_grad()
        self.run_validation()

    def run_validation(self):
        values = []
        for batch in self.loader:
            logs = self.helper.train_batch(batch)  # expect: GL101
            values.append(logs["loss"].detach().mean().item())
        return sum(values) / len(values)


net = nn.Linear(4, 4)
data = [{"x": torch.zeros(2, 4), "y": torch.zeros(2, 4)}]
Trainer(net, data, torch.optim.SGD(net.parameters(), lr=0.1)).train()
