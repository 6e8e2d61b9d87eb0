"""Recall case: module children reached through a variable, ``child.requires_grad = False``.

The children are listed first and then sliced, or the iterator is kept in a
variable: each ``child`` is still an ``nn.Module``, and setting the attribute
freezes nothing.
"""

import torchvision


def freeze_early_stages(model, stages=6):
    children = list(model.children())
    for child in children[:stages]:
        child.requires_grad = False  # expect: GL302:9
    return model


def freeze_all_but_head():
    model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
    layers = model.children()
    for layer in layers:
        layer.requires_grad = False  # expect: GL302:9
    model.fc.requires_grad_(True)
    return model
