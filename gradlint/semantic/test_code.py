"""Whether a file is a test module: one that pytest or unittest collects tests from.

A file named like a test (``test_*.py``, ``*_test.py``) is not always one: research
code names its evaluation scripts ``test_gaze.py``. A test module is proven by
what it defines: a module-level ``def test_*`` function that the module's own
code never calls (the runner calls a test; a script calls its ``def
test(loader, model)`` from ``main`` or its ``__main__`` block), or a class named
``Test*`` or deriving from a ``*TestCase`` class. Every function of such a module
(tests, their helpers, fixtures, ``setUp``, the target of a spawned process) is
run by the test runner, one test at a time.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, FrozenSet, List

import libcst as cst

from gradlint.semantic.project import UNIT_TEST_FILE as TEST_FILE
from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


def _test_class(node: cst.ClassDef) -> bool:
    if node.name.value.startswith("Test"):
        return True
    for base in node.bases:
        value = base.value
        name = value.attr.value if isinstance(value, cst.Attribute) else value.value if isinstance(value, cst.Name) else ""
        if name.endswith("TestCase"):
            return True
    return False


def is_test_module(module: cst.Module) -> bool:
    """Whether ``module`` defines tests a test runner collects (at its top level)."""
    if any(isinstance(stmt, cst.ClassDef) and _test_class(stmt) for stmt in module.body):
        return True
    tests = {stmt.name.value for stmt in module.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("test")}
    return bool(tests - _called_names(module)) if tests else False


def has_test_class(module: cst.Module) -> bool:
    """Whether ``module`` defines a ``Test*`` class or a ``*TestCase`` subclass at its top level."""
    return any(isinstance(stmt, cst.ClassDef) and _test_class(stmt) for stmt in module.body)


def uncalled_tests(module: cst.Module) -> List[cst.FunctionDef]:
    """The module-level ``test*`` functions that the module's own code never calls."""
    called = _called_names(module)
    return [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value.startswith("test") and s.name.value not in called]


def called_by_module(module: cst.Module, name: str) -> bool:
    """Whether the module's own code calls ``name`` (``test(loader)`` in its
    ``__main__`` block): a function a runner would not collect as a test."""
    return name in _called_names(module)


@functools.lru_cache(maxsize=1)  # asked again and again for the file being checked; keep no other tree alive
def _called_names(module: cst.Module) -> FrozenSet[str]:
    """Names the module's code calls (``test(loader)``), anywhere in it."""
    return frozenset({node.func.value for node in walk(module, into_functions=True) if type(node) is cst.Call and type(node.func) is cst.Name})


def in_test_module(sem: "SemanticModel") -> bool:
    """Whether the file being checked is a test module: named like a test file and
    defining tests."""
    return TEST_FILE.search(sem.path.replace("\\", "/")) is not None and is_test_module(sem.module)


def computes_gradients(sem: "SemanticModel") -> bool:
    """Whether anything in the file may compute gradients or train (``calls.may_train``:
    a backward the semantic model knows, an optimizer step, or a call named like
    training). Broad on purpose: it can only keep findings."""
    return any(isinstance(node, cst.Call) and sem.calls.may_train(node) for node in walk(sem.module, into_functions=True))


__all__ = ["TEST_FILE", "called_by_module", "computes_gradients", "has_test_class", "in_test_module", "is_test_module", "uncalled_tests"]
