"""Conditions a fix needs before it may be offered as safe (or offered at all).

Each is stated in terms of the semantic model's facts (where values go:
``semantic.escape``; what ``torch`` names where code is inserted:
``semantic.names.torch_ref_at``) or of the syntax around a node, and errs
towards "not proven": a fix whose conditions are not proven is unsafe, or not
offered where even an unsafe fix would crash. The differential oracle
(tests/oracle/) holds each condition to what torch really does.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from gradlint.semantic.tree import walk


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
