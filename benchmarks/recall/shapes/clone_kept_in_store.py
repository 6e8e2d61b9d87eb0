"""Shape of the recall cause `clone-kept-in-store` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch

_store = {}


def report(name, value):
    if isinstance(value, torch.Tensor):
        value = value.clone()  # expect: GL301
    _store.setdefault(name, []).append(value)
