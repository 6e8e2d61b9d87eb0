"""Shape of the recall cause `eval-in-other-method-attribute-forward` (benchmarks/recall, first-sight batch 12).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Distiller:
    def __init__(self, student: nn.Module):
        self.student = student
        self.frozen = None
        self.opt = torch.optim.SGD(student.parameters(), lr=0.1)

    def new_phase(self):
        self.frozen = copy.deepcopy(self.student)
        self.frozen.eval()

    def step(self, x, y):
        logits = self.student(x)
        loss = F.cross_entropy(logits, y)
        if self.frozen is not None:
            old = self.frozen(x)  # expect: GL101
            loss = loss + F.mse_loss(logits, old)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
