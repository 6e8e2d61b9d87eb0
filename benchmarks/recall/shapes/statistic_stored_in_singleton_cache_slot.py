"""Shape of the recall cause `statistic-stored-in-singleton-cache-slot` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A process-wide cache object keeps one quantization scale per layer; the scale
is computed from activations of a forward that runs with gradients on (the
rounding is being tuned), so each stored slot holds that layer's graph until
the next call replaces it.
"""
import torch


def scale_of(x: torch.Tensor) -> torch.Tensor:
    return x.abs().amax().clamp(min=1e-8) / 448.0


class ScaleCache:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.scales = []
        return cls._instance

    def observe(self, layer_idx: int, states: torch.Tensor) -> torch.Tensor:
        s = scale_of(states)
        while len(self.scales) <= layer_idx:
            self.scales.append(None)
        self.scales[layer_idx] = s  # expect: GL301
        return (states / s).round() * s
