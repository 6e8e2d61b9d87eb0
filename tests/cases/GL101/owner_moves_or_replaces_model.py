"""Precision case: owners whose `__init__` switches the network to eval mode
and then, under a condition, replaces it by something else (a freshly built
network, a wrapper whose mode is not shown): after `__init__` the attribute
is not proven in eval mode, and NumPy results do not make it so.
"""

import numpy as np
import torch

from model.prnet import PRNet


class Rebuilt:
    def __init__(self, path, fresh):
        self.net = PRNet(3, 3)
        self.net.load_state_dict(torch.load(path))
        self.net.eval()
        if fresh:
            self.net = PRNet(3, 3).to("cuda")

    def process(self, image):
        pos = self.net(torch.from_numpy(image)).detach().numpy()  # expect-not: GL101
        return np.transpose(pos)


class Trained:
    def __init__(self, path):
        self.net = PRNet(3, 3)
        self.net.eval()
        if torch.cuda.is_available():
            self.net = self.net.cuda().train()

    def process(self, image):
        pos = self.net(torch.from_numpy(image)).detach().numpy()  # expect-not: GL101
        return np.transpose(pos)
