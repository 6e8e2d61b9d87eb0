"""Precision case: calls in inference code that are not forwards worth reporting.

A sampler's ``_generate_batches`` builds a ``torch.Generator`` (an imported
class, not a model); ``generate_default_cfgs`` calls a function of the file
whose name mentions a model; ``quantize`` runs one calibration forward whose
output is dropped at once (its graph is freed as soon as it is built).
"""

import torch


def split_model_name_tag(name):
    model, _, tag = name.partition(".")
    return model, tag


def generate_default_cfgs(cfgs):
    return dict(split_model_name_tag(k) for k in cfgs)  # expect-not: GL101


class BucketSampler:
    def _generate_batches(self, seed, n):
        g = torch.Generator()  # expect-not: GL101
        g.manual_seed(seed)
        return torch.randperm(n, generator=g).tolist()


def quantize(model, example):
    model.eval()
    torch.ao.quantization.prepare(model, inplace=True)
    model(example)  # expect-not: GL101
    torch.ao.quantization.convert(model, inplace=True)
    return model
