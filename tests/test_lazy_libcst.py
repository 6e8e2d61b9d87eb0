"""``gradlint.lazy_libcst``: the package ``libcst`` without its ``__init__``'s imports,
the same names bound to the same objects.

Each case runs in a fresh process: the package can be installed lazily only
where nothing has imported LibCST yet (this process has).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import libcst

from gradlint.lazy_libcst import names_of

INIT = Path(libcst.__file__)


def _names_by_ast(source: str):
    """What ``libcst/__init__.py`` imports from its submodules, read with Python's parser."""
    where = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("libcst.") and node.level == 0:
            for alias in node.names:
                where[alias.asname or alias.name] = node.module
    return where


def _fresh(code: str):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# For each name: what it is, where it is defined (the same object has the same answers).
DESCRIBE = """
import json, sys
def describe(value):
    return [type(value).__name__, getattr(value, "__module__", None), getattr(value, "__qualname__", repr(value)[:80])]
"""


def test_every_name_the_init_imports_is_found():
    source = INIT.read_text(encoding="utf-8")
    where = names_of(source)
    assert where == _names_by_ast(source)
    assert len(where) > 200 and where["Name"] == "libcst._nodes.expression" and where["LIBCST_VERSION"] == "libcst._version"


def test_the_lazy_package_binds_every_name_as_the_real_one_and_imports_no_more_than_asked():
    names = sorted(_names_by_ast(INIT.read_text(encoding="utf-8")))
    lazy = _fresh(DESCRIBE + f"""
from gradlint import lazy_libcst
assert lazy_libcst.install() is True
assert 'libcst' not in sys.modules
import libcst as cst
cst.Name, cst.parse_module, cst.CSTVisitor, cst.ParserSyntaxError
from libcst import native
small = sorted(m for m in sys.modules if m.startswith("libcst"))
loader = [cst.__file__ == cst.__spec__.origin, cst.__spec__.loader.is_package("libcst")]
import importlib.resources
loader.append(importlib.resources.files("libcst").joinpath("py.typed").is_file())
print(json.dumps([small, {{n: describe(getattr(cst, n)) for n in {names!r}}}, loader]))
""")
    real = _fresh(DESCRIBE + f"""
import libcst as cst
print(json.dumps({{n: describe(getattr(cst, n)) for n in {names!r}}}))
""")
    small, described, loader = lazy
    assert described == real
    assert loader == [True, True, True]  # the package's file, and its loader's answers, are the real ones
    assert "libcst._nodes.expression" in small and "libcst.native" in small
    assert [m for m in small if m.startswith(("libcst.metadata", "libcst.helpers", "libcst._batched_visitor"))] == []


def test_a_name_the_table_does_not_hold_runs_the_real_init():
    out = _fresh("""
import json, sys
from gradlint import lazy_libcst
lazy_libcst.install()
import libcst
before = "libcst._batched_visitor" in sys.modules
names = libcst.__all__
try:
    libcst.no_such_name
    missing = "found"
except AttributeError as exc:
    missing = str(exc)
print(json.dumps([before, "libcst._batched_visitor" in sys.modules, len(names), missing]))
""")
    real = _fresh("import json, libcst; print(json.dumps(len(libcst.__all__)))")
    assert out == [False, True, real, "module 'libcst' has no attribute 'no_such_name'"]


def test_nothing_is_installed_where_libcst_is_imported_already():
    out = _fresh("""
import json, libcst
from gradlint import lazy_libcst
print(json.dumps([lazy_libcst.install(), hasattr(libcst, "__getattr__")]))
""")
    assert out == [False, False]
