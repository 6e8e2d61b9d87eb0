"""Shape of the recall cause `eval-in-caller-dict-models` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Trainer:
    def _eval_step(self, batch):
        z, c, y = batch
        y_ = self.model["generator"](z, c)  # expect: GL101
        return self.criterion(y_, y).item()

    def _eval_epoch(self, loader):
        for key in self.model.keys():
            self.model[key].eval()
        losses = [self._eval_step(batch) for batch in loader]
        for key in self.model.keys():
            self.model[key].train()
        return sum(losses) / len(losses)
