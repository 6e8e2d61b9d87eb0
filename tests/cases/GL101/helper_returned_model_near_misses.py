"""Precision case: helpers that return a model and a tokenizer, but not surely
in eval mode: one trains it after the switch, one returns it only on some
paths, one returns what it never switched (a config, not a module). The
caller's forwards stay silent: the premise "in eval mode" is not proven.
"""

import torch


def load_trained(path):
    model = torch.load(path)
    model.eval()
    model.train()
    return model, None


def load_sometimes(path, ready):
    model = torch.load(path)
    model.eval()
    if ready:
        return model, None
    return None, None


def load_config(path):
    config = torch.load(path)
    return config, None


class Builder:
    def build_trained(self, corpus):
        self.trained, _ = load_trained(self.model_path)
        return [self.trained(b).detach().cpu().numpy() for b in corpus]  # expect-not: GL101

    def build_sometimes(self, corpus):
        self.maybe, _ = load_sometimes(self.model_path, True)
        return [self.maybe(b).detach().cpu().numpy() for b in corpus]  # expect-not: GL101

    def build_config(self, corpus):
        self.config, _ = load_config(self.model_path)
        return [self.config(b).detach().cpu().numpy() for b in corpus]  # expect-not: GL101
