"""Recall case (first-sight recall batch 27, Kandinsky 2's ``Natalle``): a pipeline
builds its image encoder only when the config names one, choosing the class in an
``if``/``elif`` with no ``else``, and puts it in eval mode in that branch; the other
branch leaves the attribute unset. Every value the attribute can hold is in eval
mode, so the methods that run it record a graph nothing uses.

Not reported: a branch that assigns the attribute without switching it, and an
``if`` without ``else`` that builds a fresh one after the switch.
"""

import torch
from torch import nn


class Pipeline:
    def __init__(self, config):
        self.config = config
        if config["image_encoder"] is not None:
            self.use_image_encoder = True
            if config["image_encoder"] == "conv":
                self.image_encoder = nn.Conv2d(3, 4, 3)
            elif config["image_encoder"] == "linear":
                self.image_encoder = nn.Linear(3, 4)
            self.image_encoder.eval()
        else:
            self.use_image_encoder = False
        if config["text_encoder"]:
            self.text_encoder = nn.Embedding(100, 4)
            self.text_encoder.eval()

    def encode_image(self, image):
        latent = self.image_encoder(image) * 0.18  # expect: GL101:18
        return latent.cpu().numpy()

    def encode_text(self, tokens):
        emb = self.text_encoder(tokens)  # expect: GL101:15
        return emb.cpu().numpy()


class Unswitched:
    def __init__(self, config):
        if config["small"]:
            self.net = nn.Linear(3, 4)
            self.net.eval()
        else:
            self.net = nn.Linear(3, 8)

    def predict(self, x):
        return self.net(x).cpu().numpy()


class Rebuilt:
    def __init__(self, config):
        self.net = nn.Linear(3, 4)
        self.net.eval()
        if config["fresh"]:
            self.net = nn.Linear(3, 4)

    def predict(self, x):
        return self.net(x).cpu().numpy()
