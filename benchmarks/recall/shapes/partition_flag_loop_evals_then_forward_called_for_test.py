"""Shape of the recall cause `partition-flag-loop-evals-then-forward-called-for-test` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

One epoch function serves both training and testing: inside the batch loop a
partition flag either puts the model in train mode (and later steps the
optimizer) or in eval mode, and the forward is shared by both branches. A thin
test wrapper calls it with the test partition, and the evaluation script calls
the wrapper with no gradient guard, so every test batch records a graph that
nothing ever differentiates.
"""
import torch
import torch.nn as nn


def run_epoch(model, loader, partition="train", optimizer=None):
    criterion = nn.L1Loss()
    total = 0.0
    for x, y in loader:
        if partition == "train":
            model.train()
            optimizer.zero_grad()
        else:
            model.eval()
        pred = model(x)  # expect: GL101
        loss = criterion(pred, y)
        if partition == "train":
            loss.backward()
            optimizer.step()
        total += loss.item()
    return total / max(len(loader), 1)


def test_epoch(model, loader):
    return run_epoch(model, loader, partition="test")


def evaluate_script():
    regressor = nn.Linear(3, 1)
    batches = [(torch.randn(5, 3), torch.randn(5, 1)) for _ in range(4)]
    return test_epoch(regressor, batches)


if __name__ == "__main__":
    print(evaluate_script())
