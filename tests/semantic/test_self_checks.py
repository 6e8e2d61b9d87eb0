"""Which forwards are self-checks (``gradlint.semantic.self_checks``): made-up
inputs, outputs only checked. Each source marks the forward asked about with the
call ``model(...)``; every ``model(...)`` call of the source is one forward."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.semantic import SemanticModel
from gradlint.semantic.tree import Tree, walk


def _self_checks(source: str):
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    tree = Tree(module)
    sem = SemanticModel(module, source, tree, "check.py")
    forwards = [
        n for n in walk(module, into_functions=True)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "model"
    ]
    assert forwards, "the source runs model(...)"
    found = sem.self_checks.self_checks(forwards)
    return [id(f) in found for f in forwards]


SELF_CHECKS = {
    "random input, allclose": """\
        import torch
        def f(model, ref):
            x = torch.randn(2, 8)
            out = model(x)
            assert torch.allclose(out, ref(x))
        """,
    "sized by names, moved and sliced, shape printed": """\
        import torch
        def f(model, n, dim, device):
            x = torch.zeros(1, n * 2, dim).to(device)
            out = model(x[:, :4], dtype=torch.float16)
            print(out.shape, out.dtype)
        """,
    "chained caches, outputs appended and compared": """\
        import copy, torch
        import numpy as np
        from util import to_numpy
        def f(model, ort_out):
            cache = torch.zeros(1, 4)
            chunk = copy.deepcopy(torch.ones(1, 8))
            outs = []
            for i in range(3):
                out, cache = model(chunk, cache)
                outs.append(out)
            np.testing.assert_allclose(to_numpy(torch.cat(outs, dim=-1)), ort_out)
        """,
    "returned to the only caller, which compares": """\
        import torch
        def run(model):
            return model(torch.ones(1, 3))
        def main(model, other):
            diff = (run(model) - other).abs().max().item()
            assert diff < 1e-3
        """,
    "parameter made up by the only caller, logged": """\
        import logging, torch
        logger = logging.getLogger(__name__)
        def run(model, x):
            y = model(x)
            logger.info("shape %s", y.shape)
        def main(model):
            run(model, torch.rand(4, 4))
        """,
    "printed whole and as numbers": """\
        import torch
        def f(model):
            out = model(torch.randn(2, 3))
            print(out)
            print(float(out.sum()), len(out), f"{out.mean():.3f}")
        """,
    "module-level block, fields of the output": """\
        import torch
        model = build()
        x = torch.randn(2, 5)
        result = model(x)
        print(result.z.shape)
        assert torch.allclose(result.z[:, :2], model(x[:, :2]).z)
        """,
}

RESULTS = {
    "input is data": """\
        import torch
        def f(model, batch):
            out = model(batch)
            print(out.shape)
        """,
    "torch.tensor of data": """\
        import torch
        def f(model, values):
            out = model(torch.tensor(values))
            print(out.shape)
        """,
    "made-up tensor overwritten with data": """\
        import torch
        def f(model, batch):
            x = torch.zeros(4, 8)
            x[:2] = batch
            print(model(x).shape)
        """,
    "output saved": """\
        import torch
        from torchvision.utils import save_image
        def f(model):
            images = model(torch.randn(16, 100))
            save_image(images, "samples.png")
        """,
    "output written to a file": """\
        import torch
        def f(model, path):
            out = model(torch.randn(2, 3))
            with open(path, "w") as fh:
                fh.write(str(out))
        """,
    "output appended to a returned list": """\
        import torch
        def f(model):
            feats = []
            for _ in range(4):
                feats.append(model(torch.randn(2, 8)))
            return feats
        """,
    "returned to a caller the file does not show": """\
        import torch
        def f(model):
            return model(torch.randn(2, 8))
        """,
    "output stored on self": """\
        import torch
        class A:
            def f(self, model):
                self.out = model(torch.randn(2, 8))
        """,
    "output read in a nested function": """\
        import torch
        def f(model):
            out = model(torch.randn(2, 8))
            return lambda: out
        """,
    "parameter of a function with two callers": """\
        import torch
        def run(model, x):
            print(model(x).shape)
        def main(model, batch):
            run(model, torch.rand(4, 4))
            run(model, batch)
        """,
    "module-level input that a function replaces": """\
        import torch
        x = torch.randn(2, 5)
        def load():
            global x
            x = read()
        print(model(x).shape)
        """,
}


@pytest.mark.parametrize("name", sorted(SELF_CHECKS))
def test_self_checks(name):
    assert all(_self_checks(SELF_CHECKS[name]))


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results(name):
    assert not any(_self_checks(RESULTS[name]))


def test_a_forward_fed_by_one_that_is_no_self_check_is_none():
    # The second forward's input is the first one's output, which is also saved.
    source = """\
        import torch
        def f(model):
            h = model(torch.randn(2, 8))
            torch.save(h, "h.pt")
            print(model(h).shape)
        """
    assert _self_checks(source) == [False, False]
