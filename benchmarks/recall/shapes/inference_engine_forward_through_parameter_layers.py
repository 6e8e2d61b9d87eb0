"""Shape of the recall cause `inference-engine-forward-through-parameter-layers` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

An inference-only engine (not an nn.Module, never trained) wraps loaded
weights in nn.Embedding / nn.Linear layers whose parameters keep
requires_grad=True; its forward is called once per generated token with
gradients on, so the embedding and head outputs record a graph each step.
"""
import torch
import torch.nn as nn


class TinyEngine:
    def __init__(self, tensors):
        vocab, dim = tensors["embed"].shape
        self.embed = nn.Embedding(vocab, dim)
        self.embed.weight = nn.Parameter(tensors["embed"])
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = nn.Parameter(tensors["head"])

    def forward(self, ids):
        hidden = self.embed(ids)  # expect: GL101
        return self.head(hidden[:, -1:, :])  # expect: GL101


def generate(engine, ids, steps):
    for _ in range(steps):
        nxt = engine.forward(ids).argmax(-1)
        ids = torch.cat([ids, nxt], dim=1)
    return ids
