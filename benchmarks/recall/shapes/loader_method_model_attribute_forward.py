"""Shape of the recall cause `loader-method-model-attribute-forward` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A separator class rebuilds a trained network from a checkpoint in its own
loader method (state dict loaded, never trained, no eval call), keeps it on
an attribute, and its run method feeds one spectrogram through it with
gradients on: the whole graph of the forward is recorded for nothing.
"""
import torch

from nets import build_network


class Separator:
    def __init__(self, checkpoint, device="cpu"):
        self.device = torch.device(device)
        self.net = self.restore(checkpoint)

    def restore(self, checkpoint):
        saved = torch.load(checkpoint, map_location=self.device)
        net = build_network(saved["config"])
        net.load_state_dict(saved["weights"])
        return net.to(self.device)

    def run(self, spectrogram):
        batch = torch.as_tensor(spectrogram, device=self.device)[None]
        result = self.net(batch)  # expect: GL101
        return result["masks"][0].cpu().numpy()
