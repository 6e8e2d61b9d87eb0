"""Precision case: a conversion script's last step runs the converted model once
on a reference input and prints how far it is from the original framework's
output. The function is called only as the last statement of the ``__main__``
block: its one graph lives until the program ends a moment later, so there is
nothing worth changing.

Recall counterpart (kept): the same kind of entry function looping over a test
set records a graph per batch, and is reported.
"""

import torch


def compare_with_reference(model, reference):
    model.eval()
    inputs = torch.load("reference_input.pt")
    outputs = model.forward(inputs)  # expect-not: GL101
    print(torch.dist(outputs.softmax(1), reference))
    return outputs


def evaluate_all(model, loader):
    model.eval()
    errors = 0
    for images, labels in loader:
        errors += (model(images).argmax(1) != labels).sum().item()  # expect: GL101:20
    print(errors)


if __name__ == "__main__":
    net = torch.load("converted.pt")
    evaluate_all(net, torch.load("loader.pt"))
    compare_with_reference(net, torch.load("reference_output.pt"))
