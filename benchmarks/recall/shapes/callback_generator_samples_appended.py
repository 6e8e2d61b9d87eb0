"""Shape of the recall cause `callback-generator-samples-appended` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A training callback decodes a grid of latent codes through the module it is
handed, with gradients on, and keeps every decoded image (graph included) in
a list until the grid is logged.
"""
import torch


class LatentGrid:
    def __init__(self, steps=4):
        self.steps = steps

    def on_epoch_end(self, trainer, module):
        tiles = self.walk(module, module.latent_dim)
        trainer.log_image(torch.cat(tiles))

    def walk(self, net, latent_dim):
        tiles = []
        for a in range(self.steps):
            for b in range(self.steps):
                code = torch.zeros(1, latent_dim)
                code[:, 0], code[:, 1] = a, b
                tile = net(code)  # expect: GL1xx
                tiles.append(tile)  # expect: GL301
        return tiles
