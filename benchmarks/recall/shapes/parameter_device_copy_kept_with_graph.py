"""Shape of the recall cause `parameter-device-copy-kept-with-graph` (benchmarks/recall/first-sight-12.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class OffloadCache(dict):
    def __init__(self, device):
        super().__init__()
        self.device = device

    def offload(self, key, param: nn.Parameter):
        # a parameter that requires grad, copied with grad on: the copy records a graph
        # back to the original, so the cache keeps both alive
        self[key] = param.to(self.device)  # expect: GL301


cache = OffloadCache("cpu")
layer = nn.Linear(8, 8)
for name, p in layer.named_parameters():
    cache.offload(name, p)
