"""Which code of a function a particular call runs, when a constant argument
decides a branch: ``apply_model_and_loss(x, y, backward=False)`` never runs the
``if backward: loss.backward()`` of its body.

A parameter is *constant* for a call when the call passes a literal for it
(``True``, ``False``, ``None``, a number, a string), or passes nothing and the
parameter's default is one, and the body never rebinds it. Only tests on such
a parameter are decided: ``if p:``, ``if not p:``, ``p == "eval"``, ``p !=
"train"``, ``p in ("eval", "test")`` (``not in``), and ``and``/``or``/``not``
of those; every other branch is kept, so what is left out surely does not run
for that call.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence, Set

import libcst as cst

from gradlint.semantic.syntax import dotted
from gradlint.semantic.tree import walk

_LITERALS = (cst.Integer, cst.Float, cst.SimpleString)


_UNKNOWN = object()  # no literal: the value is not known here


def _literal(expr: cst.BaseExpression) -> object:
    """The value of a literal (``True``, ``None``, ``3``, ``0.5``, ``"eval"``), or ``_UNKNOWN``."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, cst.Integer):
        return int(expr.value.replace("_", ""), 0)
    if isinstance(expr, cst.Float):
        return float(expr.value.replace("_", ""))
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value
    return _UNKNOWN


def constant_params(
    func: cst.FunctionDef, call: cst.Call, method: bool, known: Optional[Dict[str, object]] = None
) -> Dict[str, object]:
    """The value of each parameter of ``func`` that ``call`` makes constant (see
    the module docstring); ``method``: the call's receiver fills the first
    parameter (``self.f(...)``); ``known``: names of the calling code that hold
    constants there (its own constant parameters, passed on: ``self.step(batch,
    mode)``)."""
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
    found: Dict[str, object] = {}
    for name, param in by_name.items():
        if name in passed:
            value = passed[name]
        elif star:
            continue  # ``*args``/``**kw`` may pass it
        else:
            value = param.default
        literal = _literal(value) if value is not None else _UNKNOWN
        if known and isinstance(value, cst.Name) and value.value in known:
            literal = known[value.value]
        if literal is not _UNKNOWN:
            found[name] = literal
    if found:
        # The body's walk only where a constant was found: most calls pass none.
        rebound = _rebound(func)
        found = {name: value for name, value in found.items() if name not in rebound}
    return found


def _rebound(func: cst.FunctionDef) -> Set[str]:
    """Names the body binds (assignment targets, loop variables, ``with ... as``,
    ``global``/``nonlocal``, ``del``): a parameter among them is not constant."""
    return set(_rebound_counts(func))


def _rebound_counts(func: cst.FunctionDef) -> Dict[str, int]:
    """How many times the body binds each name (see ``_rebound``)."""
    out: Dict[str, int] = {}
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
            for item in node.names:
                out[item.name.value] = out.get(item.name.value, 0) + 2  # bound elsewhere too
        for target in targets:
            for sub in walk(target):
                if isinstance(sub, cst.Name):
                    out[sub.value] = out.get(sub.value, 0) + 1
    return out


def derived(func: cst.FunctionDef, constants: Dict[str, object]) -> Dict[str, object]:
    """``constants`` with the locals that they decide: a name the body binds once, by a
    statement of its own block, to a test they decide (``is_train = split ==
    "train"``) or to a choice of literals by one (``mode = "train" if
    self.net.training else "val"``). Read once, top to bottom, so a name used
    before its binding is left undecided."""
    if not isinstance(func.body, cst.IndentedBlock):
        return constants
    found = dict(constants)
    rebound = _rebound_counts(func)
    for stmt in func.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign):
            continue
        assign = stmt.body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            continue
        name = assign.targets[0].target.value
        if rebound.get(name) != 1 or name in found:
            continue
        value = assign.value
        if isinstance(value, cst.IfExp):
            taken = decided(value.test, found)
            chosen = None if taken is None else _literal(value.body if taken else value.orelse)
            if taken is not None and chosen is not _UNKNOWN:
                found[name] = chosen
        elif isinstance(value, (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation)):
            truth = decided(value, found)
            if truth is not None:
                found[name] = truth
    return found


def decided(test: cst.BaseExpression, constants: Dict[str, object]) -> Optional[bool]:
    """The truth of an ``if`` test on constant parameters (see the module docstring),
    and on the attributes ``constants`` holds by their dotted names
    (``self.encoder.training``)."""
    if isinstance(test, cst.Name):
        return bool(constants[test.value]) if test.value in constants else None
    if isinstance(test, cst.Attribute):
        key = dotted(test)
        return bool(constants[key]) if key is not None and key in constants else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = decided(test.expression, constants)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = decided(test.left, constants), decided(test.right, constants)
        if isinstance(test.operator, cst.And):
            return False if left is False or right is False else (True if left and right else None)
        return True if left is True or right is True else (False if left is False and right is False else None)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
        value = constants.get(test.left.value, _UNKNOWN)
        target = test.comparisons[0]
        if value is not _UNKNOWN and isinstance(target.operator, (cst.Is, cst.IsNot)) and _literal(target.comparator) is None:
            return (value is None) == isinstance(target.operator, cst.Is)  # ``optimizer is not None`` for a literal
        if value is _UNKNOWN or not isinstance(value, str):
            return None  # strings only: ``0 == False`` and the like are not worth deciding
        if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            other = _literal(target.comparator)
            if not isinstance(other, str):
                return None
            return (value == other) == isinstance(target.operator, cst.Equal)
        if isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(target.comparator, (cst.Tuple, cst.List, cst.Set)):
            items = [_literal(e.value) for e in target.comparator.elements if isinstance(e, cst.Element)]
            if len(items) != len(target.comparator.elements) or not all(isinstance(i, str) for i in items):
                return None
            return (value in items) == isinstance(target.operator, cst.In)
    return None


def live_code(body: cst.BaseSuite, constants: Dict[str, object]) -> Iterator[cst.CSTNode]:
    """The code of ``body`` that may run when ``constants`` hold: its simple
    statements and the headers of its compound ones (tests, iterables, ``with``
    items), leaving out the branches the constants rule out. Walking what it
    yields covers everything else of the body."""
    if not isinstance(body, cst.IndentedBlock):
        yield body  # ``def f(): return x`` on one line
        return
    for stmt in body.body:
        yield from _live_statement(stmt, constants)


def live_statements(stmt: cst.CSTNode, constants: Dict[str, object]) -> Iterator[cst.CSTNode]:
    """``live_code`` of the one statement ``stmt``."""
    return _live_statement(stmt, constants)


def _live_statement(stmt: cst.CSTNode, constants: Dict[str, object]) -> Iterator[cst.CSTNode]:
    if isinstance(stmt, cst.If):
        taken = decided(stmt.test, constants)
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
