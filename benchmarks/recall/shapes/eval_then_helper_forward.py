"""Shape of the recall cause `eval-then-helper-forward` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Net:
    def infer(self, x):
        return self.module_(x)

    def validation_step(self, x, y):
        self.module_.eval()
        y_pred = self.infer(x)  # expect: GL101
        return {"loss": self.criterion(y_pred, y).item(), "y_pred": y_pred.detach()}
