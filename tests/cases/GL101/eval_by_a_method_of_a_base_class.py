"""Recall case (first-sight recall batch 28, a distillation trainer): the validation
method calls a method its class inherits from a base of the same file, which puts
``self.model`` in eval mode, through ``super()`` or ``self``; every validation
forward after it records a graph kept for numbers only.

Not reported: a base method that trains the model again after its ``eval()``, and
a method the subclass overrides without switching.
"""

import torch


class Base:
    def __init__(self, model):
        self.model = model

    def prepare_validation(self):
        self.model.eval()

    def prepare_and_train(self):
        self.model.eval()
        self.model.train()

    def plain(self):
        pass


class Trainer(Base):
    def validate(self, loader):
        super().prepare_validation()
        return torch.stack([self.model(x).detach() for x in loader]).numpy()  # expect: GL101:29

    def validate_self(self, loader):
        self.prepare_validation()
        return torch.stack([self.model(x).detach() for x in loader]).numpy()  # expect: GL101:29

    def validate_trained(self, loader):
        self.prepare_and_train()
        return torch.stack([self.model(x).detach() for x in loader]).numpy()  # expect-not: GL101

    def validate_plain(self, loader):
        super().plain()
        return torch.stack([self.model(x).detach() for x in loader]).numpy()  # expect-not: GL101


class Overriding(Base):
    def prepare_validation(self):
        pass

    def validate(self, loader):
        self.prepare_validation()
        return torch.stack([self.model(x).detach() for x in loader]).numpy()  # expect-not: GL101
