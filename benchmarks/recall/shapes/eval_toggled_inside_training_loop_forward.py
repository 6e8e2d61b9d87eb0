"""Shape of the recall cause `eval-toggled-inside-training-loop-forward` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A hyperparameter-fitting loop switches its model to eval mode at the top of
every iteration to score a held-out set, then back to train mode for the
optimisation step. The held-out forward and its loss run with gradients on:
each iteration builds a graph for the test data that is never
backpropagated, only printed.
"""
import torch


class Regressor:
    def __init__(self, model, likelihood, objective):
        self.model = model
        self.likelihood = likelihood
        self.objective = objective

    def fit(self, train_x, train_y, test_x, test_y, steps=500):
        opt = torch.optim.Adam(self.model.parameters(), lr=0.01)
        for i in range(steps):
            self.model.eval()
            self.likelihood.eval()
            test_out = self.model(test_x)  # expect: GL101
            test_loss = -self.objective(test_out, test_y)  # expect: GL101
            self.model.train()
            self.likelihood.train()
            opt.zero_grad()
            loss = -self.objective(self.model(train_x), train_y)
            loss.backward()
            opt.step()
            if i % 100 == 0:
                print(i, loss.item(), test_loss.item())
