"""Precision case: weight loading at set-up, in functions not named ``*init*``.

Copying pretrained token embeddings into a fresh model and growing the
vocabulary happen before any forward has run: no graph holds these weights.
"""

import torch
import torch.nn as nn


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, dim, classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.head = nn.Linear(dim, classes)

    def load_pretrained_embeddings(self, vectors, freeze=True):
        self.embedding.weight.data.copy_(vectors)  # expect-not: GL202
        self.embedding.weight.requires_grad = not freeze

    def resize_token_embeddings(self, new_size):
        old = self.embedding
        self.embedding = nn.Embedding(new_size, old.embedding_dim)
        self.embedding.weight.data[: old.num_embeddings] = old.weight.data  # expect-not: GL202

    def forward(self, tokens):
        return self.head(self.embedding(tokens).mean(1))


def build_model(vocab, vectors_path, classes=4):
    model = TextClassifier(len(vocab), 300, classes)
    model.load_pretrained_embeddings(torch.load(vectors_path))
    model.head.bias.data.zero_()  # expect-not: GL202
    return model
