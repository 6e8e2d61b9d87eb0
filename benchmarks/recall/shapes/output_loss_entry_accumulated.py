"""Shape of the recall cause `output-loss-entry-accumulated` (benchmarks/recall, first-sight batch 6).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 3)

    def forward(self, input_ids, target_ids):
        logits = self.head(input_ids)
        return {"logits": logits, "total_loss": nn.functional.cross_entropy(logits, target_ids)}


def expected_error(model, batches, labels):
    entropy = 0.0
    for x in batches:
        for y in labels:
            out = model(x, y)
            entropy += out["total_loss"]  # expect: GL301
    return entropy
