"""Shape of the recall cause `decode-method-self-forward-eval-in-script` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A module's text-generation method hands off to a beam-search helper that
calls `self.forward` once per decoding step; a script builds the module
through a project factory in another file, puts it in eval mode and calls
the generation method with no guard anywhere on the way.
"""
import torch
import torch.nn as nn


class Writer(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.head(self.emb(ids))

    def generate(self, prompt, steps=8, width=2):
        ids = torch.tensor([prompt])
        return self.search(ids, steps, width)

    def search(self, ids, steps, width):
        best = []
        for _ in range(steps):
            scores = self.forward(ids)  # expect: GL101
            nxt = scores[:, -1].log_softmax(-1).topk(width).indices[:, :1]
            best.append(int(nxt[0, 0]))
            ids = torch.cat([ids[:1], nxt[:1]], dim=1)
        return best


def build(kind="writer"):
    if kind == "writer":
        return Writer()
    raise ValueError(kind)


if __name__ == "__main__":
    model = build()
    model.eval()
    for prompt in ([1, 2, 3], [4, 5]):
        print(model.generate(prompt))
