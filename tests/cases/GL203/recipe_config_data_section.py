"""Precision case: ``.data`` sections of recipe and experiment configs.

A training-framework recipe has a ``data`` section: ``recipe.data.seq_length
= 256`` sets a config field, and ``exp.data.image_size`` reads one. These are
not tensors; ``.detach()`` would crash.
"""

import torch
from omegaconf import OmegaConf


def build_recipe(path, overrides):
    recipe = OmegaConf.load(path)
    recipe.data.seq_length = 256  # expect-not: GL203
    recipe.data.micro_batch_size = overrides.get("micro_batch_size", 4)  # expect-not: GL203
    recipe.trainer.precision = "bf16-mixed" if torch.cuda.is_bf16_supported() else 32
    return recipe


def image_transform_size(exp):
    size = exp.data.image_size  # expect-not: GL203
    crop = exp.data.crop_fraction * size  # expect-not: GL203
    return torch.Size([int(size), int(crop)])
