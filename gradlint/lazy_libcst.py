"""``import libcst`` without what a parse and a walk of the tree do not use.

``libcst/__init__.py`` imports the metadata providers (scope analysis, names,
type inference), the batched visitors and the helpers whatever one asks of
LibCST, and every import of a part of LibCST (``libcst._parser``) runs that
``__init__`` first, paid by every ``gradlint check`` of a file that must be
parsed: 0.03 s of its 0.19 s (docs/benchmarks.md, "Start-up").

:func:`install` has the next ``import libcst`` make the package as the import
system would (its own spec: ``__file__``, ``__path__``), but without running
its ``__init__``; a name of the package is looked up on first
use in the submodule its ``__init__`` imports it from, so that ``cst.Name``
imports the node classes and ``cst.parse_module`` the parser, and no more.
Submodules (``libcst.metadata``, ``libcst.codemod``) import as before when
asked for. A name that ``__init__`` does not import from a submodule
(``__all__``, a name of a LibCST not yet seen), or one that its submodule does
not hold, runs the real ``__init__`` in the package, after which the package
is the one ``import libcst`` makes.

Only ``gradlint check`` installs it, before anything imports LibCST; a
process that has imported LibCST already keeps it as it is, and one that
checks no file that needs LibCST imports none of it.
"""

from __future__ import annotations

import re
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, Dict, Optional

# `from libcst.x import (a, b as c, ...)` and `from libcst.x import a`, as written in
# libcst/__init__.py. Compiled when LibCST is imported, not when this module is:
# a check of files without triggers imports this module and no LibCST.
_FROM_IMPORT = r"^\s*from\s+(libcst(?:\.\w+)+)\s+import\s+(\([^)]*\)|[^\n]*)"
_COMMENT = r"#[^\n]*"


def names_of(init_source: str) -> Dict[str, str]:
    """Each name that ``libcst/__init__.py`` imports from a submodule -> that submodule."""
    where: Dict[str, str] = {}
    for match in re.finditer(_FROM_IMPORT, init_source, re.MULTILINE):
        module, names = match.group(1), re.sub(_COMMENT, "", match.group(2)).strip("() \n")
        for item in names.split(","):
            parts = item.split()
            if len(parts) == 1:
                where[parts[0]] = module
            elif len(parts) == 3 and parts[1] == "as":
                where[parts[2]] = module
    return where


def _import(name: str) -> ModuleType:
    # The import statement's own path (not importlib.import_module), which
    # `python -X importtime` times and lists.
    __import__(name)
    return sys.modules[name]


class _Loader:
    """Makes the package ``libcst`` as its own loader would, but runs its ``__init__``
    only when a name asks for it."""

    def __init__(self, loader: Any, where: Dict[str, str]) -> None:
        self.loader = loader
        self.where = where

    def __getattr__(self, name: str) -> Any:
        # What else a loader is asked (is_package, get_resource_reader...): the real one answers.
        return getattr(self.loader, name)

    def create_module(self, spec: ModuleSpec) -> Optional[ModuleType]:
        return None  # the default: __file__, __path__ and the rest from the spec

    def exec_module(self, module: ModuleType) -> None:
        loader, where = self.loader, self.where
        state = {"complete": False}

        def complete() -> None:
            if not state["complete"]:
                state["complete"] = True
                loader.exec_module(module)

        def __getattr__(name: str) -> Any:
            submodule = where.get(name)
            if submodule is not None and not state["complete"]:
                try:
                    value = getattr(_import(submodule), name)
                except (ImportError, AttributeError):
                    pass
                else:
                    setattr(module, name, value)
                    return value
            if name.startswith("__") and name.endswith("__") and name != "__all__":
                # Asked of any module (copy, pickle, typing): not worth a full import.
                raise AttributeError(f"module 'libcst' has no attribute {name!r}")
            if not state["complete"] and name.isidentifier():
                # `from libcst import native`: a submodule, which the import system asks
                # of the package as an attribute before it imports it.
                try:
                    return _import(f"libcst.{name}")
                except ModuleNotFoundError as exc:
                    if exc.name != f"libcst.{name}":
                        raise
            complete()
            try:
                return module.__dict__[name]
            except KeyError:
                raise AttributeError(f"module 'libcst' has no attribute {name!r}") from None

        module.__getattr__ = __getattr__  # type: ignore[method-assign]


class _Finder:
    """Finds ``libcst`` once, where the other finders find it, and hands it to :class:`_Loader`."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Optional[ModuleSpec]:
        if name != "libcst":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module") or spec.origin is None or spec.submodule_search_locations is None:
            return spec
        try:
            with open(spec.origin, encoding="utf-8") as f:
                where = names_of(f.read())
        except (OSError, ValueError):
            return spec
        spec.loader = _Loader(loader, where)
        return spec


def install() -> bool:
    """From now on, ``import libcst`` makes the lazily filled package; False where
    LibCST is imported already (it stays as it is)."""
    if "libcst" in sys.modules:
        return False
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    return True
