"""Precision case: a PaddlePaddle trainer's evaluation, in a file that imports no torch.

``self.net`` is built elsewhere (its class is unknown here); the file imports
Paddle and not torch, so nothing proves it a PyTorch module: its forward
records no PyTorch graph and ``torch.no_grad()`` would not apply. One forward
runs under ``paddle.no_grad()``, one without any guard: neither is reported.
"""

import numpy as np
import paddle


class Evaluator:
    def __init__(self, net, loader):
        self.net = net
        self.loader = loader

    def score(self):
        self.net.eval()
        hits = []
        for image, label in self.loader:
            logits = self.net(image)  # expect-not: GL101
            hits.append((logits.argmax(-1) == label).numpy())
        return float(np.concatenate(hits).mean())

    def embed(self, batches):
        self.net.eval()
        with paddle.no_grad():
            out = [self.net(paddle.to_tensor(b)).numpy() for b in batches]  # expect-not: GL101
        return out
