"""What ``semantic.ast_decorators`` records of a project's decorators: the kinds that
leave grad mode to the caller, and the shapes that may not."""

import ast
import textwrap

import pytest

from gradlint.semantic.ast_decorators import summary_entry

CM = """
import contextlib
import torch
from .helpers import timer

@contextlib.contextmanager
def seeded(seed):
    torch.manual_seed(seed)
    yield

@contextlib.contextmanager
def quiet():
    with torch.no_grad():
        yield
"""


@pytest.mark.parametrize(
    "source, kind",
    [
        ("def d(fn):\n    return fn\n", "plain"),
        ("def d(fn):\n    def w(*a):\n        return fn(*a)\n    return w\n", "wrapper"),
        ("def d(fn):\n    @functools.wraps(fn)\n    def w(*a):\n        with seeded(0):\n            return fn(*a)\n    return w\n", "wrapper"),
        # the context manager switches grad mode, or is not the file's own
        ("def d(fn):\n    def w(*a):\n        with quiet():\n            return fn(*a)\n    return w\n", None),
        ("def d(fn):\n    def w(*a):\n        with timer():\n            return fn(*a)\n    return w\n", None),
        ("def d(fn):\n    def w(self, *a):\n        with self.lock:\n            return fn(self, *a)\n    return w\n", None),
        # the wrapper names a switch, never calls the function, or is decorated otherwise
        ("def d(fn):\n    def w(*a):\n        torch.set_grad_enabled(False)\n        return fn(*a)\n    return w\n", None),
        ("def d(fn):\n    def w(*a):\n        return a\n    return w\n", None),
        ("def d(fn):\n    @cache\n    def w(*a):\n        return fn(*a)\n    return w\n", None),
        # the parameter or the wrapper is rebound, or a generator wraps
        ("def d(fn):\n    def w(*a):\n        return fn(*a)\n    fn = print\n    return w\n", None),
        ("def d(fn):\n    def w(*a):\n        yield fn(*a)\n    return w\n", None),
    ],
)
def test_decorator_kinds(source, kind):
    tree = ast.parse(textwrap.dedent(CM) + source)
    assert summary_entry(tree).get("identity_decorators", {}).get("d") == kind
