"""Precision case: a predictor keeps the `torch` module on the instance, imported
lazily in `__init__`, and guards its forward with `with self.torch.no_grad():`.
The guard cannot be resolved to torch's, but it is one by every sign: grad
mode there is not proven on, so nothing is reported.
"""

from torch import nn


class Segmenter:
    def __init__(self):
        import torch

        self.torch = torch
        self.model = nn.Conv2d(3, 2, 1)
        self.model.eval()

    def masks(self, images):
        found = []
        for image in images:
            with self.torch.no_grad():
                found.append(self.model(image).argmax(1))  # expect-not: GL101
        return found
