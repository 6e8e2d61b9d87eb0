"""Shape of the recall cause `eval-then-other-file-method-loop` (benchmarks/recall, first-sight batch 6).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


# In the project this class sits in a models package, named as a context file.
class NodeClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(8, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        return self.out(self.hidden(x).relu()).log_softmax(-1)

    def inference(self, x):
        h = self.hidden(x).relu()
        return self.out(h), h.detach().clone()


class Runner:
    def __init__(self, features, batches):
        self.features = features
        self.batches = batches
        self._model = None

    @property
    def model(self):
        if self._model is None:
            self._model = self.setup_model()
        return self._model

    def setup_model(self):
        return NodeClassifier()

    def validate(self):
        self.model.eval()
        scores = []
        for idx in self.batches:
            logits, _ = self.model.inference(self.features[idx])  # expect: GL101
            scores.append(logits)
        return torch.cat(scores).argmax(-1)
