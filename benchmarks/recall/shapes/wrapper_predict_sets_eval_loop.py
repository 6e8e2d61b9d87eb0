"""Shape of the recall cause `wrapper-predict-sets-eval-loop` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 3)

    def forward(self, words):
        return self.proj(words).argmax(-1)


# In the project this wrapper lives in a trainer module, named as a context file.
class Runner:
    def __init__(self):
        self.model = Tagger()

    def predict(self, batch):
        # the wrapper switches its model to eval mode and leaves grad mode to the caller
        self.model.eval()
        return self.model(batch).tolist()


def tag_document(runner, batches):
    tags = []
    for batch in batches:
        tags += runner.predict(batch)  # expect: GL101
    return tags


print(tag_document(Runner(), [torch.randn(2, 6)]))
