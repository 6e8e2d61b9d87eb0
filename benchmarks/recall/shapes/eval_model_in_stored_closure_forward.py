"""Shape of the recall cause `eval-model-in-stored-closure-forward` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A loader method builds a model, puts it in eval mode and defines a nested
scoring function that closes over the model; the function is kept on the
instance and called later, from another method, with gradients on.
"""
import torch
import torch.nn as nn


class Scorer:
    def __init__(self):
        self.score_batch = None

    def load(self, width=8):
        net = nn.Sequential(nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 2)).eval()

        def score_batch(batch):
            logits = net(batch)  # expect: GL101
            return logits.softmax(-1)[:, 1].tolist()

        self.score_batch = score_batch

    def rank(self, items, step=4):
        scores = []
        for i in range(0, len(items), step):
            scores.extend(self.score_batch(torch.stack(items[i:i + step])))
        return sorted(range(len(items)), key=scores.__getitem__, reverse=True)


if __name__ == "__main__":
    s = Scorer()
    s.load()
    print(s.rank([torch.randn(8) for _ in range(6)]))
