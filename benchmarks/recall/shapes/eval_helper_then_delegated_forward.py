"""Shape of the recall cause `eval-helper-then-delegated-forward` (benchmarks/recall, first-sight batch 7).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn as nn


class Task:
    """In the project this class sits in another file; it runs the shared modules."""

    def __init__(self, modules):
        self.modules = modules

    def prepare(self, charset):
        return self.modules["proto"](charset)


class Runner:
    def __init__(self, tasks):
        self.modules = {"proto": nn.Linear(8, 16), "head": nn.Linear(16, 4)}
        self.tasks = [Task(self.modules) for _ in range(tasks)]

    def eval_mode(self):
        for m in self.modules.values():
            m.eval()

    def pretest(self, i, charset):
        self.eval_mode()
        # the prototypes come back with the graph of the whole character set
        return self.tasks[i].prepare(charset)  # expect: GL101
