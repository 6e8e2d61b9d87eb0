"""Recall case (first-sight recall batch 27, Kandinsky 2's ``encode_text``): a pipeline
keeps two text encoders in eval mode and hands each to its own method, which runs
the one it is given and returns NumPy arrays: the forward records a graph nothing
uses. So does a helper that reduces what it runs to a float, whichever caller hands
it an encoder in eval mode (the student's training step hands it one in train mode),
and a function that moves the model it is given to a device first.

Not reported: a method whose output keeps its graph (its caller decides).
"""

import torch
from torch import nn


class Pipeline:
    def __init__(self):
        self.text_encoder1 = nn.Embedding(100, 8)
        self.text_encoder1.eval()
        self.text_encoder2 = nn.Embedding(100, 8)
        self.text_encoder2.eval()
        self.student = nn.Embedding(100, 8)

    def encode_text(self, text_encoder, tokens):
        emb = text_encoder(tokens)  # expect: GL101:15
        return emb.cpu().numpy()

    def embed(self, encoder, tokens):
        return encoder(tokens)

    def describe(self, encoder, tokens):
        return encoder(tokens).mean().item()  # expect: GL101:16

    def log_norms(self, tokens):
        print(self.describe(self.text_encoder2, tokens))

    def generate(self, tokens):
        first = self.encode_text(text_encoder=self.text_encoder1, tokens=tokens)
        second = self.encode_text(self.text_encoder2, tokens)
        kept = self.embed(self.text_encoder1, tokens)
        return first, second, kept

    def train_step(self, tokens, optimizer):
        print(self.describe(self.student, tokens))
        loss = self.student(tokens).pow(2).mean()
        loss.backward()
        optimizer.step()


def stitch(model, graph, device):
    model = model.to(device)
    return model(graph).argmax(1).tolist()  # expect: GL101:12


def stitch_all(model, graphs, device):
    model.eval()
    return [stitch(model, g, device) for g in graphs]
