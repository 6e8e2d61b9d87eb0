"""Shape of the recall cause `hook-output-kept-with-graph` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class FeatureGrabber:
    """Keeps what a layer returns so that a saliency map can be drawn from it later."""

    def __init__(self, layer: torch.nn.Module):
        self.kept = []
        layer.register_forward_hook(self.grab)

    def grab(self, module, inputs, output):
        self.kept.append(output.cpu())  # expect: GL301

    def reset(self):
        self.kept = []
