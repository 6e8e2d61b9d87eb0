"""The file's own functions and their callers (``gradlint.semantic.calls``)."""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context


def _func(ctx, name):
    return next(s for s in ctx.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name)


@pytest.mark.parametrize(
    "main,expected",
    [
        ('if __name__ == "__main__":\n    run(parse())\n', True),
        ("if '__main__' == __name__:\n    setup()\n    run(parse())\n", True),
        ('if __name__ == "__main__":\n    print(run(parse()))\n', True),  # inside the last statement
        ('if __name__ == "__main__":\n    run(parse())\n    train()\n', False),  # training follows
        ('if __name__ != "__main__":\n    run(parse())\n', False),
        ("run(parse())\n", False),  # no __main__ block: a module, not a script
        ('run(parse())\nif __name__ == "__main__":\n    run(parse())\n', False),  # also called on import
        ('if __name__ == "__main__":\n    callbacks = [run]\n    go(callbacks)\n', False),  # used as a value
    ],
)
def test_is_script_entry(main, expected):
    ctx = context("def run(args):\n    pass\n\n\n" + main)
    assert ctx.semantic.calls.is_script_entry(_func(ctx, "run")) is expected


def test_main_block_is_the_module_level_if():
    ctx = context('def f():\n    if __name__ == "__main__":\n        pass\n')
    assert ctx.semantic.calls.main_block() is None
    ctx = context('import sys\nif __name__ == "__main__":\n    sys.exit(0)\n')
    assert ctx.semantic.calls.main_block() is ctx.module.body[1]


def test_method_is_never_a_script_entry():
    ctx = context('class App:\n    def run(self):\n        pass\n\n\nif __name__ == "__main__":\n    App().run()\n')
    method = ctx.module.body[0].body.body[0]
    assert ctx.semantic.calls.is_script_entry(method) is False


def test_runs_per_step():
    ctx = context(
        """\
import pytorch_lightning as pl


class Model(pl.LightningModule):
    def training_step(self, batch, i):
        return batch

    def helper(self, x):
        return x


class Plain:
    def training_step(self, batch, i):
        return batch


def step(x):
    return x


def once(x):
    return x


def fit(loader):
    once(loader)
    for x in loader:
        step(x)
    while True:
        Plain().helper(x)
"""
    )
    funcs = {
        f"{c.name.value}.{s.name.value}" if c is not None else s.name.value: s
        for c, body in [(None, ctx.module.body)] + [(c, c.body.body) for c in ctx.module.body if isinstance(c, cst.ClassDef)]
        for s in body
        if isinstance(s, cst.FunctionDef)
    }
    per_step = {name for name, f in funcs.items() if ctx.semantic.calls.runs_per_step(f)}
    # Lightning calls training_step per batch; helper is called (as a method) only in a loop;
    # Plain.training_step is no framework's and has no caller; once is called outside a loop.
    assert per_step == {"Model.training_step", "Model.helper", "step"}
