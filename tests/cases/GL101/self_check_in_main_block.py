"""Precision case (first-sight batch 6): a module's ``if __name__ == "__main__":``
self-check. A freshly built quantizer with random weights is put in eval mode and
run on a random input and on its first frames; the shapes are printed and the
latents compared with ``torch.allclose``. Both forwards are on made-up inputs and
their outputs are only checked: the default tier is silent, the preview tier
reports the block.

Recall counterpart: ``made_up_inputs_kept_as_results.py`` (the same input whose
outputs are saved).
"""

import torch
from torch import nn


class Quantizer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Conv1d(dim, dim, 1)

    def forward(self, x):
        z = self.proj(x)
        return z, z.round()


if __name__ == "__main__":
    rvq = Quantizer(512)
    rvq.eval()
    x = torch.randn(2, 512, 442)

    result = rvq(x)  # expect-preview: GL101:14
    print(rvq)
    print(result[0].shape, result[1].shape)

    result1 = rvq(x[:, :, :40])
    print(result1[0].shape)

    assert torch.allclose(result[0][:, :, :40], result1[0], atol=1e-8)
    print("Success")
