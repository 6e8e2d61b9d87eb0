"""Conditions a fix needs before it may be offered as safe (or offered at all).

Each answers from the syntax alone and errs towards "not proven": a fix whose
conditions are not proven here is unsafe, or not offered where even an unsafe
fix would crash. The differential oracle (tests/oracle/) holds each condition
to what torch really does.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from gradlint.semantic.tree import walk

def _module_statement(ctx, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The statement of the module body that holds ``node``."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, cst.Module):
        child, parent = parent, ctx.parent(parent)
    return child if parent is not None else None


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` itself binds ``name`` (any kind of binding)."""
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            return True  # ``from x import *`` may bind it
        for alias in node.names:  # type: ignore[union-attr]
            if alias.asname is not None:
                bound = alias.asname.name
                if isinstance(bound, cst.Name) and bound.value == name:
                    return True
            else:
                head = alias.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                if isinstance(head, cst.Name) and head.value == name:
                    return True
        return False
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value == name
    if isinstance(node, cst.Param):
        return node.name.value == name
    if isinstance(node, cst.ExceptHandler):
        return isinstance(node.name, cst.AsName) and isinstance(node.name.name, cst.Name) and node.name.name.value == name
    if isinstance(node, (cst.Global, cst.Nonlocal)):
        return any(n.name.value == name for n in node.names)
    targets = []
    if isinstance(node, cst.AssignTarget):
        targets = [node.target]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, (cst.For, cst.CompFor)):
        targets = [node.target]
    elif isinstance(node, cst.NamedExpr):
        targets = [node.target]
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        targets = [node.asname.name]
    elif isinstance(node, cst.MatchAs) and node.name is not None:
        targets = [node.name]
    for t in targets:
        for sub in walk(t, into_functions=True):
            if isinstance(sub, cst.Name) and sub.value == name:
                return True
    return False


def _is_module_import(node: cst.CSTNode, name: str) -> bool:
    """``import torch`` / ``import torch as name`` (nothing else in the statement binds ``name``)."""
    if not isinstance(node, cst.Import):
        return False
    for alias in node.names:
        if alias.asname is not None:
            bound = alias.asname.name
            if isinstance(bound, cst.Name) and bound.value == name:
                return isinstance(alias.name, cst.Name) and alias.name.value == "torch"
        elif isinstance(alias.name, cst.Name) and alias.name.value == name:
            return name == "torch"
    return False


def torch_name_is_module(ctx, at: cst.CSTNode, name: str, adds_import: bool) -> bool:
    """Whether ``name`` is sure to be the torch module where a fix inserts ``name.no_grad()``
    at ``at`` (a decorator: evaluated where its function is defined).

    Proven only when every binding of ``name`` in the file is an unconditional
    module-level ``import torch`` (or ``import torch as name``), the first of them
    comes before the module statement holding ``at`` (or the fix adds the import
    at the top), and nothing else anywhere binds it: not a class attribute, a
    parameter, an ``except ... as``, a local, a later assignment.
    """
    at_stmt = _module_statement(ctx, at)
    first_import: Optional[int] = None
    body = list(ctx.module.body)
    for node in walk(ctx.module, into_functions=True):
        if not _binds(node, name):
            continue
        if _is_module_import(node, name):
            stmt = _module_statement(ctx, node)
            line = ctx.parent(node)
            if not (isinstance(line, cst.SimpleStatementLine) and stmt is line):
                return False  # inside an ``if``/``try``/function: maybe not bound
            index = body.index(stmt)
            first_import = index if first_import is None else min(first_import, index)
            continue
        if _visible_at(ctx, node, at):
            return False
    if adds_import:
        return first_import is None  # inserted at the top, before every use
    if first_import is None or at_stmt is None:
        return False
    return first_import < body.index(at_stmt)


def _binding_scope(ctx, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The function, lambda or class whose namespace ``node``'s binding goes to; None: the module."""
    if isinstance(node, (cst.Global,)):
        return None
    parent = ctx.parent(node)
    if isinstance(node, cst.Param):
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            parent = ctx.parent(parent)
        return parent
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
        parent = ctx.parent(parent)
    return None if isinstance(parent, cst.Module) else parent


def _visible_at(ctx, binding: cst.CSTNode, at: cst.CSTNode) -> bool:
    """Whether a binding may be what the name means at ``at`` (a decorator is evaluated
    in the scope around its function; a class's names are seen only in its own body)."""
    scope = _binding_scope(ctx, binding)
    if scope is None:
        return True
    node = at
    direct = True  # no function between ``at`` and the scope yet
    while node is not None:
        parent = ctx.parent(node)
        if parent is scope:
            if isinstance(scope, cst.ClassDef):
                return direct
            # inside the function's body, not the function itself being decorated
            return not (node is scope.params if isinstance(scope, cst.FunctionDef) else False)
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            direct = False
        node = parent
    return False


def enclosing_functions(ctx, node: cst.CSTNode) -> Iterator[cst.FunctionDef]:
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, cst.FunctionDef):
            yield parent
        parent = ctx.parent(parent)


def in_async_function(ctx, node: cst.CSTNode) -> bool:
    """Inside an ``async def`` (directly or through nested sync functions): grad mode is
    thread-local, and what such code returns goes to a coroutine whose grad mode the
    rules do not know."""
    return any(f.asynchronous is not None for f in enclosing_functions(ctx, node))


def is_generator(func: cst.FunctionDef) -> bool:
    return any(isinstance(n, (cst.Yield, cst.Await)) for n in walk(func.body))


_CATCHES_TYPE_ERROR = frozenset({"TypeError", "AttributeError", "Exception", "BaseException"})


def in_try_that_catches(ctx, node: cst.CSTNode, names=_CATCHES_TYPE_ERROR) -> bool:
    """Inside the body of a ``try`` with a bare ``except`` or one naming any of ``names``
    (or an expression it cannot read)."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.body:
            for handler in parent.handlers:
                if handler.type is None:
                    return True
                types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
                for t in types:
                    expr = t.value if isinstance(t, cst.Element) else t
                    last = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None
                    if last is None or last in names:
                        return True
        child, parent = parent, ctx.parent(parent)
    return False


def function_values_escape(ctx, func: cst.FunctionDef) -> bool:
    """Whether anything computed in ``func`` may leave it carrying a graph (returned,
    yielded, raised, stored outside, handed to a callee that may keep it, captured):
    then a guard around the whole function decides for code it cannot see."""
    return bool(ctx.semantic.escape.leaving(func))
