"""Shape of the recall cause `pretrained-model-logits-appended-per-batch` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from transformers import AutoModelForTokenClassification


class SpanReader:
    def __init__(self, name):
        self.model = AutoModelForTokenClassification.from_pretrained(name)

    def read(self, ids, chunk=8):
        scores = []
        for start in range(0, ids.shape[0], chunk):
            out = self.model(input_ids=ids[start:start + chunk])  # expect: GL101
            scores.append(out.logits.cpu())  # expect: GL301
        return torch.cat(scores).softmax(-1)
