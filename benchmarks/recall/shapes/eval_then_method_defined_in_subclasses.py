"""Shape of the recall cause `eval-then-method-defined-in-subclasses` (benchmarks/recall, first-sight batch 6).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class GraphModel(nn.Module):
    """Base of the models; each subclass defines how it predicts."""

    def predict(self, graph):
        raise NotImplementedError


class TwoLayer(GraphModel):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(6, 6)
        self.second = nn.Linear(6, 2)

    def forward(self, x):
        return self.second(self.first(x).relu())

    def predict(self, graph):
        return self.forward(graph).log_softmax(-1)


class Trainer:
    def __init__(self, model: GraphModel, graphs):
        self.model = model
        self.graphs = graphs

    def test_step(self, graph):
        self.model.eval()
        logits = self.model.predict(graph)  # expect: GL101
        return logits.argmax(-1)

    def run(self):
        return [self.test_step(g) for g in self.graphs]


print(Trainer(TwoLayer(), [torch.randn(5, 6) for _ in range(3)]).run())
