"""Recall case (first-sight recall batch 3): after ``if hasattr(model, "eval"):
model.eval()`` the model is in eval mode (or is no ``nn.Module``);
``@gin.configurable`` leaves grad mode alone; a wrapper that is surely no
``nn.Module`` and returns a whole dataset's outputs keeps every batch's
activations until it returns, whatever its caller does with them.
Precision counterpart: a module's method returning one forward's output.
"""

import gin
import torch
from torch import nn
from transformers import AutoModel


def time_inference(model, sample, runs=10):
    timings = []
    for _ in range(runs):
        out = model(sample)  # expect: GL101:15
        timings.append(out.shape[0])
    return timings


def benchmark(model, sample):
    if hasattr(model, "eval"):
        model.eval()
    return time_inference(model, sample)


@gin.configurable
def evaluate(model, loader, metric):
    model.eval()
    for batch, labels in loader:
        metric.update(model(batch).argmax(-1), labels)  # expect: GL101:23
    return metric.compute()


class EmbeddingWrapper:
    def __init__(self, name):
        self.model = AutoModel.from_pretrained(name)
        self.model.eval()

    def embed(self, batches):
        embeddings = []
        for batch in batches:
            embeddings.append(self.model(**batch).last_hidden_state[:, 0].cpu())  # expect: GL101:31
        return torch.cat(embeddings)


class Refiner(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(8, affine=False)

    def refine(self, z):
        self.norm.eval()
        return self.norm(z)  # expect-not: GL101
