"""Shape of the recall cause `lightning-forward-delegates-to-network-predict` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A training wrapper's forward hands its input to the wrapped network's own
prediction method with gradients on; a plotting helper calls that forward on
one held-out sample to draw the prediction, and converting the result to
NumPy raises because it still requires grad. Nothing in either file puts a
module in eval mode and no gradient is ever taken of the prediction.
"""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(2, 2, 3, padding=1)

    def predict(self, x):
        return self.proj(x)


class Wrapper(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net.predict(x)  # expect: GL101

    def training_step(self, x, y):
        return nn.functional.mse_loss(self.net.predict(x), y)


def plot_one(wrapper, sample):
    pred = wrapper.forward(sample.unsqueeze(0))
    return pred.squeeze().cpu().numpy()


plot_one(Wrapper(Net()), torch.zeros(2, 8, 8))
