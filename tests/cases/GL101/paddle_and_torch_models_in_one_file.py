"""Precision case: a converter holding a Paddle layer and a torch module.

The file imports both frameworks. ``PaddleHead`` derives from
``paddle.nn.Layer``: its forward after ``eval()`` is no PyTorch forward and is
not reported. ``TorchHead`` is an ``nn.Module``: its evaluation loop with grad
on is reported (the recall half of the shape).
"""

import paddle
import torch
import torch.nn as nn


class PaddleHead(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


class TorchHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


def compare(batches):
    ref = PaddleHead()
    ref.eval()
    new = TorchHead()
    new.eval()
    gaps = []
    for b in batches:
        a = ref(paddle.to_tensor(b)).numpy()  # expect-not: GL101
        t = new(torch.from_numpy(b)).numpy()  # expect: GL101:13
        gaps.append(abs(a - t).max())
    return max(gaps)
