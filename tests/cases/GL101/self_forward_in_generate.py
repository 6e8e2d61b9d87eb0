"""Recall case: a model's own ``generate`` method runs ``self(ids)``.

``generate`` is named for inference and runs the module on itself in a loop
with gradients enabled; its result is token ids (``argmax``), so no graph is
wanted. The caller is expected to have called ``eval()``.
"""

import torch
import torch.nn as nn


class TinyGPT(nn.Module):
    def __init__(self, vocab, dim, blocks):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(*blocks)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.lm_head(self.blocks(self.embed(ids)))

    def generate(self, ids, max_new_tokens):
        for _ in range(max_new_tokens):
            logits = self(ids[:, -256:])  # expect-preview: GL101:22
            ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
        return ids
