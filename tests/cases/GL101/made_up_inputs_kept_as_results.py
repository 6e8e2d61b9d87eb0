"""Recall case: forwards of an eval-mode model on inputs the code makes up, whose
outputs are results all the same. A GAN samples images from a random latent and
saves them; an encoder's outputs on random inputs are collected over a loop and
returned; a forward on a random input whose images are written to a file. And
an evaluation over a loader, whose input is data. None of them is a self-check:
the premise "the forward's outputs are results" holds and the default tier
reports each.

Precision counterparts: ``self_check_of_onnx_export.py``,
``self_check_of_converted_model.py``,
``self_check_in_main_block.py``.
"""

import torch
from torchvision.utils import save_image


def sample_images(generator, out_dir):
    generator.eval()
    z = torch.randn(64, 100, 1, 1)
    images = generator(z)  # expect: GL101:14
    save_image(images, f"{out_dir}/samples.png", normalize=True)
    print(images.shape)


def sample_features(encoder, n):
    encoder.eval()
    features = []
    for _ in range(n):
        z = torch.randn(8, 16)
        features.append(encoder(z))  # expect: GL101:25
    return features


def dump_outputs(model, path):
    model.eval()
    probe = torch.ones(1, 3, 32, 32)
    out = model(probe)  # expect: GL101:11
    torch.save(out, path)


def evaluate(model, loader):
    model.eval()
    correct = 0
    for images, labels in loader:
        logits = model(images)  # expect: GL101:18
        correct += (logits.argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)
