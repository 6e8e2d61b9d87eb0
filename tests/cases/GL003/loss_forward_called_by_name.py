"""Recall case: a course's training helper calls the criterion's ``forward`` by
name and returns ``output.data[0]``.

The criterion every call of the file passes is ``torch.nn.CrossEntropyLoss``,
whose ``forward`` gives the same 0-dim loss as calling the module: ``[0]`` on it
raises IndexError today, in a ``return`` as anywhere.
"""

import torch
from torch.autograd import Variable


def train(model, loss, optimizer, inputs, labels):
    inputs = Variable(inputs, requires_grad=False)
    labels = Variable(labels, requires_grad=False)
    optimizer.zero_grad()
    logits = model.forward(inputs)
    output = loss.forward(logits, labels)
    output.backward()
    optimizer.step()
    return output.data[0]  # expect: GL003:12


def main(model, batches):
    loss = torch.nn.CrossEntropyLoss(size_average=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    cost = 0.0
    for x, y in batches:
        cost += train(model, loss, optimizer, x, y)
    print(cost)
