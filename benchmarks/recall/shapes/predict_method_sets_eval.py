"""Shape of the recall cause `predict-method-sets-eval` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)

    def score_tails(self, heads):
        return self.emb(heads) @ self.emb.weight.t()

    def predict_tails(self, heads):
        # the model switches itself to eval mode, but leaves grad mode to its caller
        self.eval()
        return torch.sigmoid(self.score_tails(heads))

    def predict(self, heads):
        return self.predict_tails(heads)


def top_tails(model, head_ids, k=5):
    scores = model.predict(torch.as_tensor(head_ids)).squeeze(0).tolist()  # expect: GL101
    return sorted(range(len(scores)), key=scores.__getitem__)[-k:]


print(top_tails(Scorer(), [3]))
