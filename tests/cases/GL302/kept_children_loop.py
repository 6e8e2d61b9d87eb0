"""Recall case (kept): ``for child in model.children(): child.requires_grad = False``.

The transfer-learning snippet that freezes nothing: the attribute is set on
each child module, not on its parameters. The correct loop over
``child.parameters()`` next to it is left alone.
"""

import torchvision


def prepare_finetuning(num_frozen=7):
    model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
    count = 0
    for child in model.children():
        count += 1
        if count < num_frozen:
            child.requires_grad = False  # expect: GL302:13
    for child in list(model.children())[:2]:
        for param in child.parameters():
            param.requires_grad = False  # expect-not: GL302
    return model
