"""Shape of the recall cause `eval-model-passed-to-sliding-window-helper` (benchmarks/recall/first-sight-25.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
The helper sits in another module of the project (named as a context file):
it calls `predictor.forward` on every tile and sums the weighted tiles into
one output, so every tile's graph stays alive until the whole image is done.
"""
import torch
import torch.nn as nn


def tile_predict(predictor, volume, tile=32):
    out = torch.zeros_like(volume)
    for start in range(0, volume.shape[-1], tile):
        piece = volume[..., start:start + tile].unsqueeze(0)
        out[..., start:start + tile] += predictor.forward(piece).squeeze(0)
    return out


class Tester:
    def __init__(self, images):
        self.images = images
        self.model = nn.Conv3d(1, 1, 3, padding=1)

    def run(self):
        self.model.eval()
        results = []
        for image in self.images:
            pred = tile_predict(self.model, image)  # expect: GL101
            results.append(pred.cpu().detach().numpy())
        return results
