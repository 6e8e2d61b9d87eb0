"""Precision case (the shape of script_main_validation_loss_printed.py): the
best validation loss is kept in a module-level name that a function of the script
reads. What that function does with it is another scope's business; the
returned loss is not proven to stay out of a backward, so the default tier
stays silent.
"""

import torch
import torchvision


def test_one_epoch(loader, model, loss_fn):
    running_vloss = 0.0
    for i, (inputs, labels) in enumerate(loader):
        outputs = model(inputs)  # expect-not: GL101
        running_vloss += loss_fn(outputs, labels)
    avg_vloss = running_vloss / (i + 1)
    return avg_vloss


def report():
    print("best", best_vloss)


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
    report()
