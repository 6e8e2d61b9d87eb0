"""Decorators of the project that hand back the very function they decorate: a
docstring helper (``adddoc(cls)`` setting ``cls.__doc__`` and returning
``cls``), a registry (``REGISTRY[name] = fn; return fn``), or a factory of
such (``@model_doc(header, "predict")``). The decorated name is bound to the
function itself, so a call of it runs in whatever grad mode its caller has:
such a decorator leaves grad mode alone, as ``functools.wraps`` does. A
project index fact (``semantic.project``), read with Python's ``ast``; a
decorator of the linted file itself is read the same way.

A third kind, ``wrapper``, hands back a function of its own that calls the
decorated one (``@random_state``: seed, call, restore) and names no grad-mode
switch, neither in itself nor in the context managers of its file that it
enters: the call runs in its caller's grad mode too, though it is not the
function itself.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Protocol, Sequence

PLAIN, FACTORY, WRAPPER = "plain", "factory", "wrapper"
# What a wrapper may not name: each switches grad mode (``torch.no_grad``, ``torch.autograd.grad_mode``).
_GRAD_SWITCHES = frozenset({"no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "grad_mode", "set_inference_mode"})


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
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            kind = identity_kind(node) or (WRAPPER if _grad_neutral_wrapper(node, functions) else None)
            if kind is not None:
                found[node.name] = kind
    return {"identity_decorators": found} if found else {}


def valid(summary: Mapping[str, Any]) -> bool:
    entry = summary.get("identity_decorators", {})
    return isinstance(entry, dict) and all(isinstance(k, str) and v in (PLAIN, FACTORY, WRAPPER) for k, v in entry.items())


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


def is_identity(index: _Index, qualname: str, origin: str, called: bool, wrappers: bool = False) -> bool:
    """Whether the decorator ``qualname`` of ``origin``'s project, defined by one file,
    is such a decorator: a factory when the decorator expression calls it; a
    grad-neutral wrapper too when ``wrappers``. A relative name
    (``._base.model_doc``) is looked for next to ``origin``, as Python does."""
    module, _, name = qualname.rpartition(".")
    files = _relative_files(index, module, origin) if module.startswith(".") else index.module_files(module, origin)
    found = [index.summaries[p].get("identity_decorators", {}).get(name) for p in files]
    kinds = (FACTORY,) if called else (PLAIN, WRAPPER) if wrappers else (PLAIN,)
    return len(found) == 1 and found[0] in kinds


def _grad_neutral_wrapper(func: ast.FunctionDef, functions: Mapping[str, ast.FunctionDef]) -> bool:
    """``def deco(fn): @functools.wraps(fn) def wrapper(*a, **k): ... fn(*a, **k) ...;
    return wrapper``: undecorated, one parameter never rebound, every path returns
    one synchronous function defined once in its body, which calls the parameter;
    neither names a grad-mode switch, and every ``with`` of the wrapper enters a
    context manager that is a function of the file (``functions``) naming none."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    if func.decorator_list or len(positional) != 1 or args.defaults or args.vararg or args.kwonlyargs or args.kwarg:
        return False
    param = positional[0].arg
    names = _returned_names(func)
    nested = [n for n in func.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and names and n.name == names[0]]
    if not names or len(set(names)) != 1 or len(nested) != 1 or not isinstance(nested[0], ast.FunctionDef):
        return False
    wrapper = nested[0]
    if _rebinds(func, param) or _rebinds(func, wrapper.name) or _rebinds(wrapper, param) or not all(_wraps(d, param) for d in wrapper.decorator_list):
        return False
    own = list(_own_nodes(wrapper.body))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in own):
        return False
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == param for n in own):
        return False
    if _names_switch(func.body):
        return False
    for node in own:
        if isinstance(node, ast.With):
            for item in node.items:
                cm = item.context_expr
                inner = functions.get(cm.func.id) if isinstance(cm, ast.Call) and isinstance(cm.func, ast.Name) else None
                if inner is None or _names_switch(inner.body):
                    return False
    return True


def _wraps(decorator: ast.expr, param: str) -> bool:
    """``@functools.wraps(fn)`` / ``@wraps(fn)`` of the decorated parameter."""
    if not isinstance(decorator, ast.Call) or len(decorator.args) != 1 or decorator.keywords:
        return False
    func, arg = decorator.func, decorator.args[0]
    named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return named == "wraps" and isinstance(arg, ast.Name) and arg.id == param


def _names_switch(body: Iterable[ast.stmt]) -> bool:
    """Whether ``body`` (nested functions included) names a grad-mode switch."""
    for stmt in body:
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Name) and node.id in _GRAD_SWITCHES) or (isinstance(node, ast.Attribute) and node.attr in _GRAD_SWITCHES):
                return True
            if isinstance(node, ast.alias) and node.name.rpartition(".")[2] in _GRAD_SWITCHES:
                return True
    return False


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
