"""Shape of the recall cause `wrapper-init-eval-called-in-batch-loop` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A plain (non-Module) wrapper puts its encoder in eval mode once, in
__init__, and runs it in __call__; in the project the wrapper lives in
another module, named as a context file. A generator loop calls the
wrapper on every batch with gradients on and keeps only detached copies.
"""
import torch
import torch.nn as nn


class Embedder:
    def __init__(self, width=8):
        self.encoder = nn.Sequential(nn.Linear(width, width), nn.GELU())
        self.encoder.eval()

    def __call__(self, batch):
        return self.encoder(batch)[:, 0]


def embed_all(batches, embedder):
    out = {}
    for ids, batch in batches:
        emb = embedder(batch)  # expect: GL101
        for i, row in zip(ids, emb.unbind()):
            out[i] = row.detach().numpy()
    return out


if __name__ == "__main__":
    print(len(embed_all([([0, 1], torch.randn(2, 8))], Embedder())))
