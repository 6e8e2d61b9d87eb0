"""Precision case (first-sight batch 12): one-off forwards in test code that the
tests reach without calling it by name: a worker handed to a spawned process
(``mp.Process(target=compile_one)``) and a class's helper handed through
``functools.partial`` to a launcher. Each runs a forward once, compares and
returns: its graph is freed when the test ends, so the default tier does not
report it (any function of a test module is test code there); the preview tier
keeps its narrower measure (a helper only the tests call by name).

Recall counterparts: the loops below, whose outputs pile up across iterations,
are reported in both tiers.
"""

import functools
import unittest

import torch
import torch.multiprocessing as mp
import torchvision.models as models

import compiler
from helpers import cosine_similarity, spawn_and_init


def compile_one(idx):
    model = models.resnet18().eval().to("cuda")
    x = torch.randn((idx + 1, 3, 224, 224)).to("cuda")
    compiled = compiler.compile(model, inputs=[x])
    cos = cosine_similarity(model(x), compiled(x))  # expect-preview: GL101:29
    assert cos > 0.99


def collect_one(idx, loader):
    model = models.resnet18().eval().to("cuda")
    outs = []
    for x in loader:
        outs.append(model(x))  # expect: GL101:21
    torch.save(outs, f"outs_{idx}.pt")


def test_multiprocess(loader):
    procs = [mp.Process(target=compile_one, args=(i,)) for i in range(3)]
    procs += [mp.Process(target=collect_one, args=(i, loader)) for i in range(3)]
    for p in procs:
        p.start()


class TestParamInit(unittest.TestCase):
    def test_param_change_after_init(self):
        spawn_and_init(functools.partial(self._check_param_change, config={}))

    @classmethod
    def _check_param_change(cls, rank, group, config):
        model = cls.get_wrapped_model(group, config=config)
        model.eval()
        x = model.module.get_input(torch.device("cuda"))
        ref_output = model(*x)  # expect-preview: GL101:22
        torch.nn.init.normal_(next(model.parameters()).data)
        assert not torch.equal(ref_output, model(*x))
