"""Shape of the recall cause `eval-in-caller-then-helper-forward` (benchmarks/recall/first-sight-17.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Trainer:
    def _run(self, batch):
        batch = batch.to(self.device)
        return self.net.forward(batch)

    def _score_split(self, batches):
        total = 0.0
        for batch in batches:
            result = self._run(batch)  # expect: GL101
            total += result["loss"].item()
        return total

    def validate(self, splits):
        self.net.eval()
        return [self._score_split(b) for b in splits]
