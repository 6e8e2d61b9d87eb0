"""Shape of the recall cause `grad-decorator-on-async-method` (benchmarks/recall/first-sight-20.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A detector loads its network in eval mode, then decorates its `async def`
inference method with `@torch.no_grad()`. The decorator wraps the coroutine
function: calling it only builds the coroutine object under no_grad, and the
body runs later, when the coroutine is awaited, with gradients back on. The
forward therefore records a graph although nothing is ever differentiated.
"""
import asyncio

import torch
import torch.nn as nn


class Detector:
    async def load(self):
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU())
        self.net.eval()

    @torch.no_grad()
    async def infer(self, image):
        scores = self.net(image)  # expect: GL101
        return scores.amax(dim=1)


async def main():
    det = Detector()
    await det.load()
    out = await det.infer(torch.rand(1, 3, 16, 16))
    print(out.requires_grad)


if __name__ == "__main__":
    asyncio.run(main())
