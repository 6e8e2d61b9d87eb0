"""Recall case: the forward of a module class that another file of the project
defines returns a shape that file decides, not a batch taken for granted.

``GraphSkipgram`` (``skipgram.py``) is an ``nn.Module``; its forward is not read
across files, so its output's shape is unknown, as it is when the class is not
known at all: a loss read ``loss.data[0]`` into a list of losses and a ``%f``
format is reported as it is without the project. A torch layer's output keeps
its batch dimension, and ``out.data[0]`` there reads its first row.
"""

import torch
from torch import nn, optim

from skipgram import GraphSkipgram


class Trainer:
    def __init__(self, dim):
        self.model = GraphSkipgram(dim)
        self.head = nn.Linear(dim, 1)

    def train(self, batches, epochs):
        optimizer = optim.SGD(self.model.parameters(), lr=0.01)
        losses = []
        for epoch in range(epochs):
            for u_pos, v_pos in batches:
                optimizer.zero_grad()
                loss = self.model(u_pos, v_pos)
                loss.backward()
                optimizer.step()
                losses.append(loss.data[0])  # expect: GL003:31
                print("epoch %d: loss=%4.3f" % (epoch, loss.data[0]))  # expect: GL003:56
                out = self.head(u_pos)
                print("first score %f" % out.data[0])  # expect-not: GL003
        return losses
