"""Shape of the recall cause `latent-extraction-loop-forward-with-grad` (benchmarks/recall/first-sight-22.toml).

A helper walks a whole dataset through a pretrained autoencoder's encoder to
precompute discrete code indices for a second-stage model; the model is never
put in eval mode and no gradient is ever taken, yet every batch's encoder
forward records a graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def precompute_codes(autoencoder, loader, dim):
    codes = []
    for images, _ in loader:
        z = autoencoder.encoder(images)  # expect: GL1xx
        flat = z.permute(0, 2, 3, 1).reshape(-1, dim)
        dist = torch.cdist(flat, autoencoder.codebook.weight)
        codes.append(dist.argmin(dim=1).reshape(images.shape[0], -1).cpu())
    return torch.cat(codes)
