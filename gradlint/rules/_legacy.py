"""Helpers shared by the legacy ``Variable`` rules (GL001, GL002)."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.torch_api import VARIABLE


def self_assignment(ctx, call: cst.Call, allow_volatile: bool) -> Optional[cst.SimpleStatementLine]:
    """The statement around ``call`` if removing every ``Variable`` wrapper in it leaves
    a self-assignment such as ``data, target = data, target``; else None.

    Only wrappers that the fixes turn into their bare argument count (no
    ``requires_grad=True``); with ``allow_volatile`` (for GL001, whose fix also
    disables gradients around it) ``volatile=`` wrappers count too, as in the
    0.3-era ``data, target = Variable(data, volatile=True), Variable(target)``. Statements carrying comments, and the only
    statement of a block, are kept: removing them would lose text or syntax.
    """
    assign = ctx.parent(call)
    if isinstance(assign, cst.Element):
        tup = ctx.parent(assign)
        assign = ctx.parent(tup) if isinstance(tup, cst.Tuple) else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    stmt = ctx.parent(assign)
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    if any(line.comment is not None for line in stmt.leading_lines) or stmt.trailing_whitespace.comment:
        return None
    block = ctx.parent(stmt)
    if isinstance(block, (cst.IndentedBlock, cst.Module)) and len(block.body) == 1:
        return None
    pairs = _pairs(assign.targets[0].target, assign.value)
    if pairs is None:
        return None
    for target, value in pairs:
        if not isinstance(target, cst.Name) or target.lpar:
            return None
        if isinstance(value, cst.Name) and value.value == target.value:
            continue
        if not (isinstance(value, cst.Call) and ctx.semantic.names.refers_to(value.func, VARIABLE)):
            return None
        data = call_arg(value, 0, "data")
        if data is None or not isinstance(data.value, cst.Name) or data.value.value != target.value:
            return None
        for arg in value.args:
            if arg is data:
                continue
            name = arg.keyword.value if arg.keyword is not None else None
            if name == "requires_grad" and bool_value(arg.value) is False:
                continue
            if name == "volatile" and allow_volatile:
                continue
            return None
        if not ctx.semantic.values.carries_no_graph(data.value, ctx.semantic.tree.function_scope(call)):
            return None
    return stmt


def _pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> Optional[List[Tuple[cst.BaseExpression, cst.BaseExpression]]]:
    if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple):
        if len(target.elements) != len(value.elements) or any(
            isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)
        ):
            return None
        return [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
    if isinstance(target, cst.Name):
        return [(target, value)]
    return None
