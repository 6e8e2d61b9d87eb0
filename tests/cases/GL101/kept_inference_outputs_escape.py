"""Precision case (kept): an inference-named helper whose output a training step differentiates.

``predict`` returns the model's output with its graph, and the training loop
calls ``backward()`` through it: gradients are needed, nothing is reported.
"""

import torch.nn.functional as F


def predict(model, images):
    return model(images)  # expect-not: GL101


def train_epoch(model, loader, optimizer):
    model.train()
    for images, labels in loader:
        loss = F.cross_entropy(predict(model, images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
