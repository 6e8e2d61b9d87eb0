"""Shape of the recall cause `eval-branch-method-under-trainer-enabled-grad` (benchmarks/recall/first-sight-24.toml).

A model family dispatches `forward` on `self.training`: the training branch
returns a loss, the evaluation branch only scores a batch. A shared
validation loop puts every model in eval mode but keeps gradients enabled
for the whole family (some members adapt by gradient descent at test time),
so a member whose evaluation branch needs no gradient still records a graph
for every test batch.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class EpisodeModel(nn.Module):
    needs_test_time_grad = True

    def forward(self, batch):
        if self.training:
            return self.loss_branch(batch)
        return self.score_branch(batch)


class AmortizedHead(EpisodeModel):
    """Infers its classifier from the support set: no gradient at test time."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(10, 4)
        self.weights_from_support = nn.Linear(4, 4)

    def loss_branch(self, batch):
        support, query, labels = batch
        logits = self.encoder(query) @ self.weights_from_support(self.encoder(support)).t()
        return nn.functional.cross_entropy(logits, labels)

    def score_branch(self, batch):
        support, query, labels = batch
        feats = self.encoder(query)  # expect: GL101
        weights = self.weights_from_support(self.encoder(support))  # expect: GL101
        return (feats @ weights.t()).argmax(-1).eq(labels).float().mean().item()


def validate(model, episodes):
    model.eval()
    with torch.set_grad_enabled(model.needs_test_time_grad):
        return [model(episode) for episode in episodes]


print(validate(AmortizedHead(), [(torch.randn(4, 10), torch.randn(6, 10), torch.randint(0, 4, (6,)))]))
