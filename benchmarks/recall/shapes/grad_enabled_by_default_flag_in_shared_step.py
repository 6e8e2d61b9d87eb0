"""Shape of the recall cause `grad-enabled-by-default-flag-in-shared-step` (benchmarks/recall/first-sight-17.toml).

A step shared by training and validation switches autograd with
`set_grad_enabled(flag)`, and the flag defaults to True: the validation loop,
which calls the step under `torch.no_grad()` and leaves the flag out, gets the
encoder run with gradients switched back on.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.encoder = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 1)

    def step(self, tokens, training, tune_encoder=True):
        with torch.set_grad_enabled(tune_encoder):  # expect: GL1xx
            cond = self.encoder(tokens)
        with torch.set_grad_enabled(training):
            return self.head(cond).mean()

    def validate(self, batches):
        total = 0.0
        with torch.no_grad():
            for tokens in batches:
                total += self.step(tokens, training=False).item()
        return total


print(Trainer().validate([torch.tensor([1, 2, 3])]))
