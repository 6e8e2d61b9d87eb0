"""Shape of the recall cause `eval-or-train-by-flag-then-loop` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
A predict method puts the model in train mode (Monte Carlo dropout) or in
eval mode depending on a flag, then runs it over the batches with autograd on
only to turn the outputs into numpy arrays.
"""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


class Wrapper:
    def __init__(self, net):
        self.net = net

    def predict(self, x, sample=False, batch_size=16):
        if sample:
            self.net.train()
        else:
            self.net.eval()
        outs = []
        for (xb,) in DataLoader(TensorDataset(torch.as_tensor(x)), batch_size=batch_size):
            outs.append(self.net(xb).detach().numpy())  # expect: GL101
        return np.concatenate(outs, axis=0)
