"""Branches that run only on an old torch (``gradlint.semantic.versions``)."""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context

from gradlint.semantic.tree import walk
from gradlint.semantic.versions import runs_only_before

SOURCE = """\
import torch
from distutils.version import LooseVersion
IS_TORCH_04 = LooseVersion(torch.__version__) >= LooseVersion('0.4')
OLD = torch.__version__ < '0.4'
RECENT = LooseVersion(torch.__version__) >= LooseVersion('1.0')
maybe = flag()
if IS_TORCH_04: a = new_1()
else: b = old_1()
if not IS_TORCH_04:
    c = old_2()
if OLD:
    d = old_3()
else:
    e = new_2()
if RECENT:
    f = new_3()
else:
    g = between_1()
if '0.4' <= torch.__version__:
    h = new_4()
else:
    i = old_4()
if maybe:
    j = unknown_1()
else:
    k = unknown_2()
"""


@pytest.mark.parametrize(
    "call,expected",
    [
        ("new_1", False), ("old_1", True), ("old_2", True), ("old_3", True), ("new_2", False),
        ("new_3", False), ("between_1", False),  # below 1.0 is not below 0.4
        ("new_4", False), ("old_4", True), ("unknown_1", False), ("unknown_2", False),
    ],
)
def test_runs_only_before_0_4(call, expected):
    ctx = context(SOURCE)
    node = next(n for n in walk(ctx.module) if isinstance(n, cst.Call) and ctx.code_for(n.func) == call)
    assert runs_only_before(ctx.semantic, node, (0, 4)) is expected
