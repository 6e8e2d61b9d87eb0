"""Recall case (kept): a research evaluation script named like a test file
(first-sight batch 18's speaker-verification `test_egs.py`).

Its `def test(...)` is called by its own `__main__` block, so no test runner
collects it: the file is a script, not a test module, and the forwards of its
evaluation loops are reported as in any script. A module-level `test_*`
function that nothing in the file calls is a test, and keeps the file a test
module (tests/test_rules_inference.py).
"""

import argparse

import torch


def extract(loader, model):
    model.eval()
    vectors = []
    for data, _ in loader:
        _, out = model(data)  # expect: GL101
        vectors.append(out.squeeze().data.cpu().numpy())
    return vectors


def test(loader, model):
    model.eval()
    correct = 0
    for data, label in loader:
        logits = model(data)  # expect: GL101
        correct += (logits.argmax(1) == label).sum().item()
    print(correct)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume")
    args = parser.parse_args()
    net = torch.load(args.resume)
    data_loader = torch.load("test_loader.pt")
    extract(data_loader, net)
    test(data_loader, net)
