"""Shape of the recall cause `dataset-built-under-guard-forward-loop-outside` (benchmarks/recall/first-sight-25.toml).

A validation method opens a gradient guard but only around building the
dataset; the loader loop that runs the network sits after the `with` block,
so every validation forward records a graph. The network is not switched to
eval mode here.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Solver:
    def __init__(self, net: nn.Module):
        self.net = net
        self.loss_fn = nn.MSELoss()

    def validation(self, inputs, targets, batch_size=4):
        with torch.no_grad():
            dataset = TensorDataset(inputs, targets)
        losses = []
        for x, y in DataLoader(dataset, batch_size=batch_size):
            out = self.net(x)  # expect: GL1xx
            losses.append(self.loss_fn(out, y).item())
        return sum(losses) / len(losses)


solver = Solver(nn.Linear(3, 1))
print(solver.validation(torch.randn(8, 3), torch.randn(8, 1)))
