"""Recall case: a model kept in an annotated attribute, ``self._model: nn.Module =
NetVLAD().eval()``, is run on every image with grad on.

An annotated assignment with a value binds ``self._model`` just as a plain one
does: the descriptor class is surely no ``nn.Module``, its one method that
assigns the attribute leaves it in eval mode, and nothing trains it (recall
batch 10, a global image descriptor). Precision: ``RawDescriptor`` annotates
its attribute the same way without ``eval()``, so its model may be in train
mode; ``Declared`` only declares the attribute's type, which binds nothing.
"""

import torch
from torch import nn


class NetVLAD(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(512, 64)

    def forward(self, x):
        return self.proj(x)


class GlobalDescriptor:
    def __init__(self, use_cuda: bool = True) -> None:
        self._use_cuda = use_cuda
        self._model: nn.Module = NetVLAD().eval()

    def describe(self, image):
        device = torch.device("cuda" if self._use_cuda else "cpu")
        self._model.to(device)
        desc = self._model(torch.from_numpy(image).to(device))  # expect: GL101:16
        return desc.detach().cpu().numpy()


class RawDescriptor:
    def __init__(self) -> None:
        self._model: nn.Module = NetVLAD()

    def describe(self, image):
        desc = self._model(torch.from_numpy(image))  # expect-not: GL101
        return desc.detach().cpu().numpy()


class Declared:
    _model: nn.Module

    def __init__(self, model: nn.Module) -> None:
        self._model = model

    def describe(self, image):
        desc = self._model(torch.from_numpy(image))  # expect-not: GL101
        return desc.detach().cpu().numpy()
