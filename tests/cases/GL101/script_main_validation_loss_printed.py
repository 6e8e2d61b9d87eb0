"""Recall case (first-sight recall batch 15): a training script's validation
helper runs the model with grad on and sums the loss tensors; the ``__main__``
loop puts the model in eval mode with ``model.train(False)`` before calling it.

What the helper returns reaches only printing, a comparison and a module-level
name that nothing differentiates; the helper binds names of its own that the
script's globals share (``avg_vloss``), which are its locals, not reads of
them. Precision: a script that runs backward on the returned loss stays
silent (and one whose function reads the global that holds it:
script_main_validation_loss_global_read.py).
"""

import torch
import torchvision


def test_one_epoch(loader, model, loss_fn):
    running_vloss = 0.0
    for i, (inputs, labels) in enumerate(loader):
        outputs = model(inputs)  # expect: GL101:19
        running_vloss += loss_fn(outputs, labels)
    avg_vloss = running_vloss / (i + 1)
    return avg_vloss


def val_loss(loader, model, loss_fn):
    total = 0.0
    for inputs, labels in loader:
        total += loss_fn(model(inputs), labels)  # expect-not: GL101
    return total


if __name__ == "__main__":
    loader = torch.utils.data.DataLoader(torchvision.datasets.FakeData(transform=torchvision.transforms.ToTensor()))
    model = torchvision.models.resnet18()
    loss_fn = torch.nn.CrossEntropyLoss()
    best_vloss = 1e9
    for epoch in range(5):
        model.train(False)
        avg_vloss = test_one_epoch(loader, model, loss_fn)
        print("valid", avg_vloss)
        if avg_vloss < best_vloss:
            best_vloss = avg_vloss
    model.train(False)
    penalty = val_loss(loader, model, loss_fn)
    penalty.backward()
