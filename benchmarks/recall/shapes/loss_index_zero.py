"""Shape of the recall cause `loss-index-zero` (benchmarks/recall, first-sight batch 11).

A running loss is summed from each batch's 0-dim loss tensor and read back
with `[0]`, the PyTorch 0.3 way, which raises IndexError on a 0-dim tensor.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def evaluate(model, criterion, batches):
    model.eval()
    total_loss = 0
    with torch.no_grad():
        for data, targets in batches:
            loss = criterion(model(data), targets).data
            total_loss += data.size(0) * loss
    return total_loss[0] / len(batches)  # expect: GL003
