"""Which code of a function a particular call runs, when a constant argument
decides a branch: ``apply_model_and_loss(x, y, backward=False)`` never runs the
``if backward: loss.backward()`` of its body.

A parameter is *constant* for a call when the call passes a literal for it
(``True``, ``False``, ``None``, a number, a string), or passes nothing and the
parameter's default is one, and the body never rebinds it. Only ``if p:`` and
``if not p:`` tests on such a parameter are decided; every other branch is
kept, so what is left out surely does not run for that call.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence, Set

import libcst as cst

from gradlint.semantic.tree import walk

_LITERALS = (cst.Integer, cst.Float, cst.SimpleString)


def _truth(expr: cst.BaseExpression) -> Optional[bool]:
    """The truth of a literal: ``False``/``None``/``0``/``""`` are false."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return expr.value == "True"
    if isinstance(expr, cst.Integer):
        return int(expr.value.replace("_", ""), 0) != 0
    if isinstance(expr, cst.Float):
        return float(expr.value.replace("_", "")) != 0.0
    if isinstance(expr, cst.SimpleString):
        return len(expr.evaluated_value) > 0
    return None


def constant_params(func: cst.FunctionDef, call: cst.Call, method: bool) -> Dict[str, bool]:
    """The truth of each parameter of ``func`` that ``call`` makes constant (see
    the module docstring); ``method``: the call's receiver fills the first
    parameter (``self.f(...)``)."""
    params = func.params
    positional: List[cst.Param] = [*params.posonly_params, *params.params]
    if method:
        positional = positional[1:]
    by_name = {p.name.value: p for p in [*positional, *params.kwonly_params]}
    passed: Dict[str, Optional[cst.BaseExpression]] = {}
    star = False
    for i, arg in enumerate(call.args):
        if arg.star:
            star = True  # positions past it, and any name, may come from it
            continue
        if arg.keyword is not None:
            passed[arg.keyword.value] = arg.value
        elif not star and i < len(positional):
            passed[positional[i].name.value] = arg.value
    rebound = _rebound(func)
    found: Dict[str, bool] = {}
    for name, param in by_name.items():
        if name in rebound:
            continue
        if name in passed:
            value = passed[name]
        elif star:
            continue  # ``*args``/``**kw`` may pass it
        else:
            value = param.default
        truth = _truth(value) if value is not None else None
        if truth is not None:
            found[name] = truth
    return found


def _rebound(func: cst.FunctionDef) -> Set[str]:
    """Names the body binds (assignment targets, loop variables, ``with ... as``,
    ``global``/``nonlocal``, ``del``): a parameter among them is not constant."""
    out: Set[str] = set()
    for node in walk(func.body, into_functions=True):
        targets: Sequence[cst.CSTNode] = ()
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets = [node.asname.name]
        elif isinstance(node, cst.NamedExpr):
            targets = [node.target]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            out.update(n.name.value for n in node.names)
        for target in targets:
            out.update(n.value for n in walk(target) if isinstance(n, cst.Name))
    return out


def _decided(test: cst.BaseExpression, constants: Dict[str, bool]) -> Optional[bool]:
    """The truth of an ``if`` test on a constant parameter: ``p`` or ``not p``."""
    if isinstance(test, cst.Name):
        return constants.get(test.value)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _decided(test.expression, constants)
        return None if inner is None else not inner
    return None


def live_code(body: cst.BaseSuite, constants: Dict[str, bool]) -> Iterator[cst.CSTNode]:
    """The code of ``body`` that may run when ``constants`` hold: its simple
    statements and the headers of its compound ones (tests, iterables, ``with``
    items), leaving out the branches the constants rule out. Walking what it
    yields covers everything else of the body."""
    if not isinstance(body, cst.IndentedBlock):
        yield body  # ``def f(): return x`` on one line
        return
    for stmt in body.body:
        yield from _live_statement(stmt, constants)


def _live_statement(stmt: cst.CSTNode, constants: Dict[str, bool]) -> Iterator[cst.CSTNode]:
    if isinstance(stmt, cst.If):
        taken = _decided(stmt.test, constants)
        if taken is None:
            yield stmt.test
        if taken is not False:
            yield from live_code(stmt.body, constants)
        if taken is not True and stmt.orelse is not None:
            other = stmt.orelse
            if isinstance(other, cst.If):
                yield from _live_statement(other, constants)
            else:
                yield from live_code(other.body, constants)
        return
    if isinstance(stmt, (cst.For, cst.While)):
        yield stmt.iter if isinstance(stmt, cst.For) else stmt.test
        if isinstance(stmt, cst.For):
            yield stmt.target
        yield from live_code(stmt.body, constants)
        if stmt.orelse is not None:
            yield from live_code(stmt.orelse.body, constants)
        return
    if isinstance(stmt, cst.With):
        yield from stmt.items
        yield from live_code(stmt.body, constants)
        return
    if isinstance(stmt, cst.Try):
        yield from live_code(stmt.body, constants)
        for handler in stmt.handlers:
            if handler.type is not None:
                yield handler.type
            yield from live_code(handler.body, constants)
        if stmt.orelse is not None:
            yield from live_code(stmt.orelse.body, constants)
        if stmt.finalbody is not None:
            yield from live_code(stmt.finalbody.body, constants)
        return
    yield stmt  # simple statements, and what this does not look into (match, classes)
