"""Whether a file is a test module: one that pytest or unittest collects tests from.

A file named like a test (``test_*.py``, ``*_test.py``) is not always one: research
code names its evaluation scripts ``test_gaze.py``. A test module is proven by
what it defines: a module-level ``def test_*`` function, or a class named
``Test*`` or deriving from a ``*TestCase`` class. Every function of such a module
(tests, their helpers, fixtures, ``setUp``, the target of a spawned process) is
run by the test runner, one test at a time.
"""

from __future__ import annotations

import libcst as cst


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
    return any(
        (isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("test"))
        or (isinstance(stmt, cst.ClassDef) and _test_class(stmt))
        for stmt in module.body
    )


__all__ = ["is_test_module"]
