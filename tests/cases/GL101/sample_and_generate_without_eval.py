"""Recall case: sampling and generation helpers with no ``.eval()`` of their own.

``sample_image`` saves the generated images and ``generate_text`` returns
token ids chosen by ``argmax``: the forwards' outputs never leave with a
graph, yet each forward records one.
"""

import torch
from torchvision.utils import save_image


def sample_image(generator, z_dim, path, n=64):
    z = torch.randn(n, z_dim)
    images = generator(z)  # expect-preview: GL101:14
    save_image(images.data, path, nrow=8, normalize=True)


def generate_text(model, prompt_ids, max_new_tokens=50):
    ids = prompt_ids
    for _ in range(max_new_tokens):
        logits = model(ids)  # expect-preview: GL101:18
        next_id = logits[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    return ids.tolist()
