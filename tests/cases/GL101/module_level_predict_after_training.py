"""Recall case: a script trains with a closure-based optimizer, and after each
training step predicts on held-out inputs (``test_input``) only to print the
test loss and plot the prediction: no ``eval()``, no loader, but the forward
records a graph that nothing uses.

Precision counterparts: a forward on the training input after the step (a
sanity check whose loss is printed) is not held-out data; and a script that
backpropagates through the held-out forward (a meta-learning outer step)
wants its graph.
"""

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(1, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, x, future=0):
        return self.linear(self.lstm(x)[0])


if __name__ == "__main__":
    data = torch.load("traindata.pt")
    train_input, train_target = data[3:, :-1], data[3:, 1:]
    test_input, test_target = data[:3, :-1], data[:3, 1:]
    seq = Sequence()
    criterion = nn.MSELoss()
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8)
    for i in range(15):

        def closure():
            optimizer.zero_grad()
            loss = criterion(seq(train_input), train_target)
            loss.backward()
            return loss

        optimizer.step(closure)
        print("train loss:", criterion(seq(train_input), train_target).item())  # expect-not: GL101
        pred = seq(test_input, future=1000)  # expect-preview: GL101:16
        print("test loss:", criterion(pred[:, :-1000], test_target).item())
        plt.plot(pred.detach().numpy()[0])
        plt.savefig(f"predict{i}.pdf")

    meta = Sequence()
    meta_opt = torch.optim.SGD(meta.parameters(), lr=0.1)
    for task in range(3):
        meta_opt.zero_grad()
        criterion(meta(train_input), train_target).backward()
        meta_opt.step()
        outer = criterion(meta(test_input), test_target)  # expect-not: GL101
        outer.backward()
