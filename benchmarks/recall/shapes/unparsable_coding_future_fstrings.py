# -*- coding: future_fstrings -*-
"""Shape of the recall cause `unparsable-coding-future-fstrings` (benchmarks/recall/sites.toml).

The first line names the codec of the future-fstrings backport, which Python
3.6+ does not need and cannot find unless the backport is installed: the rest
of the file is ordinary Python. Each line marked `# expect: CODE` is where
gradlint should report CODE.
"""
import torch


class Trainer:
    def _valid_epoch(self, loader):
        self.model.eval()
        hits = 0
        for x, y in loader:
            out = self.model(x)  # expect: GL101
            hits += (out.argmax(1) == y).sum().item()
        print(f"valid hits {hits}")
        return hits
