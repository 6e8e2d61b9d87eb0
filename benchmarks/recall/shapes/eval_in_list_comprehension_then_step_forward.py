"""Shape of the recall cause `eval-in-list-comprehension-then-step-forward` (benchmarks/recall/first-sight-26.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A small training framework keeps its modules in a list: its validation
method switches every one of them to eval mode inside a list comprehension,
then walks the validation batches and hands each to an overridable step
method that runs the first module with gradients on and only logs numbers.
"""
import torch
import torch.nn as nn


class Runner:
    def __init__(self, modules):
        self.modules = list(modules)
        self.log = []

    def check(self, batches):
        [m.eval() for m in self.modules]
        for x in batches:
            self.check_step(x)
        [m.train() for m in self.modules]

    def check_step(self, x):
        out = self.modules[0](x)  # expect: GL101
        self.log.append(float(out.pow(2).mean()))


if __name__ == "__main__":
    runner = Runner([nn.Linear(4, 2)])
    runner.check([torch.randn(3, 4) for _ in range(2)])
    print(runner.log)
