"""Precision case (first-sight precision batch 29, lama's copy of pytorch-fid): the
activations helper puts the model it is handed in eval mode and runs it over image
batches with grad on, but every caller hands on the ``InceptionV3([block])`` that
one of them built, whose constructor freezes every parameter: no graph is recorded.

Reported: the same helper where one caller passes a network it built unfrozen.
"""

import numpy as np
import torch
from torch import nn

from inception import InceptionV3


def get_activations(batches, model, dims=2048):
    model.eval()
    return np.concatenate([model(batch)[0].flatten(1).cpu().numpy() for batch in batches])  # expect-not: GL101


def activation_statistics(batches, model):
    act = get_activations(batches, model)
    return np.mean(act, axis=0), np.cov(act, rowvar=False)


def fid_given_batches(real, fake, device):
    model = InceptionV3([InceptionV3.BLOCK_INDEX_BY_DIM[2048]]).to(device)
    return activation_statistics(real, model), activation_statistics(fake, model)


def get_features(batches, model):
    model.eval()
    return np.concatenate([model(batch).flatten(1).cpu().numpy() for batch in batches])  # expect: GL101:28


def features_of_both(real, fake):
    frozen = InceptionV3([3])
    trained = nn.Conv2d(3, 8, 3)
    return get_features(real, frozen), get_features(fake, trained), torch.zeros(1)
