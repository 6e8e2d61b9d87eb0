"""Precision case: the model's ``forward`` is decorated ``@torch.no_grad()``.

The EMA teacher never records a graph: its forward disables gradients itself,
so evaluating it after ``eval()`` without a guard is fine.
"""

import copy

import torch
import torch.nn as nn


class EMATeacher(nn.Module):
    def __init__(self, student, decay=0.999):
        super().__init__()
        self.net = copy.deepcopy(student)
        self.decay = decay

    @torch.no_grad()
    def forward(self, x):
        return self.net(x)


class Distiller:
    def __init__(self, student):
        self.student = student
        self.teacher = EMATeacher(student)

    def evaluate_teacher(self, loader):
        self.teacher.eval()
        correct = 0
        for images, labels in loader:
            correct += (self.teacher(images).argmax(1) == labels).sum().item()  # expect-not: GL101
        return correct / len(loader.dataset)
