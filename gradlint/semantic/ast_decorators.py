"""Decorators of the project that hand back the very function they decorate: a
docstring helper (``adddoc(cls)`` setting ``cls.__doc__`` and returning
``cls``), a registry (``REGISTRY[name] = fn; return fn``), or a factory of
such (``@model_doc(header, "predict")``). The decorated name is bound to the
function itself, so a call of it runs in whatever grad mode its caller has:
such a decorator leaves grad mode alone, as ``functools.wraps`` does. A
project index fact (``semantic.project``), read with Python's ``ast``; a
decorator of the linted file itself is read the same way.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Protocol, Sequence

PLAIN, FACTORY = "plain", "factory"


class _Index(Protocol):
    """What this module asks of ``project.Project`` (which imports this module)."""

    @property
    def summaries(self) -> Mapping[str, Mapping[str, Any]]: ...

    def module_files(self, module: str, origin: str) -> Sequence[str]: ...


def summary_entry(tree: ast.Module) -> Dict[str, Dict[str, str]]:
    """``{"identity_decorators": {name: "plain" | "factory"}}`` for the module-level
    functions of ``tree`` that are such decorators (``plain``: used as ``@name``) or
    return one (``factory``: used as ``@name(...)``); nothing when there is none."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            kind = identity_kind(node)
            if kind is not None:
                found[node.name] = kind
    return {"identity_decorators": found} if found else {}


def valid(summary: Mapping[str, Any]) -> bool:
    entry = summary.get("identity_decorators", {})
    return isinstance(entry, dict) and all(isinstance(k, str) and v in (PLAIN, FACTORY) for k, v in entry.items())


def identity_kind(func: ast.FunctionDef) -> Optional[str]:
    """``plain`` when every path of ``func`` returns its one required parameter, never
    rebound; ``factory`` when every path returns a function defined once in its body
    that is ``plain``; else None. Undecorated, synchronous, no ``yield``."""
    if func.decorator_list:
        return None
    if _returns_argument(func):
        return PLAIN
    nested = {n.name: n for n in func.body if isinstance(n, ast.FunctionDef)}
    names = _returned_names(func)
    defined = [n.name for n in func.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if names and all(n in nested and defined.count(n) == 1 and not _rebinds(func, n) for n in names):
        if all(not nested[n].decorator_list and _returns_argument(nested[n]) for n in set(names)):
            return FACTORY
    return None


def is_identity(index: _Index, qualname: str, origin: str, called: bool) -> bool:
    """Whether the decorator ``qualname`` of ``origin``'s project, defined by one file,
    is such a decorator: a factory when the decorator expression calls it. A relative
    name (``._base.model_doc``) is looked for next to ``origin``, as Python does."""
    module, _, name = qualname.rpartition(".")
    files = _relative_files(index, module, origin) if module.startswith(".") else index.module_files(module, origin)
    found = [index.summaries[p].get("identity_decorators", {}).get(name) for p in files]
    return len(found) == 1 and found[0] == (FACTORY if called else PLAIN)


def _relative_files(index: _Index, module: str, origin: str) -> Sequence[str]:
    """The indexed file a relative import of ``module`` in ``origin`` loads."""
    rest = module.lstrip(".")
    directory = os.path.dirname(origin)
    for _ in range(len(module) - len(rest) - 1):
        directory = os.path.dirname(directory)
    base = os.path.join(directory, *rest.split(".")) if rest else directory
    found = []
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        for key in (os.path.normpath(candidate), os.path.abspath(candidate)):
            if key in index.summaries:
                found.append(key)
                break
    return found


def _returns_argument(func: ast.FunctionDef) -> bool:
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    if len(positional) != 1 or args.defaults or args.vararg or args.kwonlyargs or args.kwarg:
        return False
    param = positional[0].arg
    names = _returned_names(func)
    return bool(names) and all(n == param for n in names) and not _rebinds(func, param)


def _returned_names(func: ast.FunctionDef) -> Sequence[str]:
    """The names every ``return`` of ``func``'s own body returns, when each returns a
    plain name and the body ends with one (so no path falls off the end); else ()."""
    if not func.body or not isinstance(func.body[-1], ast.Return):
        return ()
    names = []
    for node in _own_nodes(func.body):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return ()
        if isinstance(node, ast.Return):
            if not isinstance(node.value, ast.Name):
                return ()
            names.append(node.value.id)
    return names


def _rebinds(func: ast.FunctionDef, name: str) -> bool:
    """Whether ``func``'s own body binds ``name`` again, or declares it global."""
    for node in _own_nodes(func.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id == name:
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name.split(".")[0]) == name for a in node.names):
            return True
    return False


def _own_nodes(body: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of ``body``, not descending into nested functions, classes or lambdas."""
    stack: List[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
