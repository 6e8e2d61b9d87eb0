"""Shape of the recall cause `logged-value-kept-with-graph` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from typing import Dict

import torch


class ImageLogger:
    def __init__(self):
        self.pending: Dict[str, torch.Tensor] = {}

    def log_image(self, key: str, value: torch.Tensor):
        if value.dim() == 3:
            self.pending[key] = value  # expect: GL301

    def flush(self, writer, step):
        for key, img in self.pending.items():
            writer.add_image(key, img.detach().cpu(), step)
        self.pending = {}
