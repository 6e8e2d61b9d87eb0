"""Precision case: a bounded collection that is the function's result.

Tiled decoding: each tile's decoded output is written into its slot of the
output and the rows are concatenated into the return value. The collection is
bounded by the image size and handed to the caller, who decides about its
graph.
"""

import torch


def decode_tiled(decoder, latents, tile=64, overlap=8):
    height, width = latents.shape[-2:]
    stride = tile - overlap
    rows = []
    for top in range(0, height, stride):
        row = []
        for left in range(0, width, stride):
            patch = latents[..., top : top + tile, left : left + tile]
            row.append(decoder(patch)[..., : stride * 8, : stride * 8])  # expect-not: GL301
        rows.append(torch.cat(row, dim=-1))  # expect-not: GL301
    image = torch.cat(rows, dim=-2)
    return image.clamp(-1, 1)
