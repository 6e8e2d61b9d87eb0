"""Shape of the recall cause `eval-in-caller` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Runner:
    def validate(self, loader):
        total = 0.0
        for x, y in loader:
            out = self.model(x)  # expect: GL101
            total += self.criterion(out, y).item()
        return total

    def epoch(self, train, val):
        self.model.train()
        self.fit(train)
        self.model.eval()
        return self.validate(val)
