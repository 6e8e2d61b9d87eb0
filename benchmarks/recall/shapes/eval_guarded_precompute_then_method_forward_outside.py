"""Shape of the recall cause `eval-guarded-precompute-then-method-forward-outside` (benchmarks/recall/first-sight-26.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Ranker(nn.Module):
    def __init__(self, n_users, n_items, dim=8):
        super().__init__()
        self.users = nn.Embedding(n_users, dim)
        self.items = nn.Embedding(n_items, dim)

    def refresh_weights(self, graph):
        return torch.sigmoid(self.users.weight.sum(1))

    def score(self, user_ids, item_ids):
        return self.users(user_ids) @ self.items(item_ids).t()


def evaluate(model, graph, user_ids, item_ids):
    model.eval()
    with torch.no_grad():
        graph["w"] = model.refresh_weights(graph)
    scores = model.score(user_ids, item_ids)  # expect: GL101
    return scores.topk(5, dim=1).indices
