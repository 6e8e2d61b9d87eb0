"""Shape of the recall cause `client-losses-summed-then-appended-to-round-history` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A federated server's evaluate method asks every client for its training loss,
which each client sums over its whole training set from forwards run with
autograd on; the server weights and adds the per-client losses and appends the
result, still a tensor carrying every client's graph, to a history list kept
on the server, once per communication round.
"""
import torch
import torch.nn as nn


class Client:
    def __init__(self, model, batches):
        self.model = model
        self.batches = batches
        self.loss = nn.MSELoss()

    def train_error_and_loss(self):
        self.model.eval()
        loss = 0
        for x, y in self.batches:
            loss += self.loss(self.model(x), y)
        return loss, len(self.batches)


class Server:
    def __init__(self, clients, rounds):
        self.clients = clients
        self.rounds = rounds
        self.train_loss_history = []

    def evaluate(self):
        stats = [c.train_error_and_loss() for c in self.clients]
        total = sum(n for _, n in stats)
        train_loss = sum(n * l for l, n in stats) / total
        self.train_loss_history.append(train_loss)  # expect: GL301

    def train(self):
        for _ in range(self.rounds):
            self.evaluate()


def make_client():
    return Client(nn.Linear(2, 1), [(torch.randn(4, 2), torch.randn(4, 1))])


Server([make_client(), make_client()], rounds=3).train()
