"""Shape of the recall cause `generation-step-output-with-graph-appended-under-flag` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A wrapper generates one token per step through a helper that runs the model
with autograd on (the inputs require grad, for attributions) and returns the
whole model output; when the caller asks for the model outputs, the generate
loop appends each step's output, whose hidden states still hold their graph,
to a list that lives until the end of generation.
"""
import torch
import torch.nn as nn


class Wrapper:
    def __init__(self, vocab=10, dim=8):
        self.emb = nn.Embedding(vocab, dim)
        self.net = nn.Linear(dim, vocab)

    def _step(self, ids):
        one_hot = torch.nn.functional.one_hot(ids, 10).float().requires_grad_(True)
        hidden = one_hot @ self.emb.weight
        logits = self.net(hidden)
        return int(logits[-1].argmax()), {"hidden": hidden, "logits": logits}

    def generate(self, ids, steps, keep_outputs=False):
        outputs = []
        for _ in range(steps):
            token, out = self._step(ids)
            if keep_outputs:
                outputs.append(out)  # expect: GL301
            ids = torch.cat([ids, torch.tensor([token])])
        return ids, outputs


print(Wrapper().generate(torch.tensor([1, 2]), 3, keep_outputs=True)[0])
