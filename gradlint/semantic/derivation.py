"""What leaves a function without being computed from a given value.

PyTorch 0.3's ``volatile=True`` made everything computed from the volatile
input record no graph, and nothing else: a second value a function returned,
computed from other inputs, kept its graph. A guard around the whole function
(``@torch.no_grad()``) restores the first but takes the graph of the second
too. ``not_derived_leaving`` names the expressions by which such other values
leave the function, so that a rewrite can cover only what flows from the input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Sequence, Set, cast

import libcst as cst

from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.torch_api import VARIABLE
from gradlint.semantic.tree import walk

# What a caller gets back: a returned or yielded value, or one raised.
_HANDED_BACK = frozenset({"return", "yield", "raise"})

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel
    from gradlint.semantic.scope_flows import ScopeFlows


def volatile_inputs(sem: "SemanticModel", func: cst.FunctionDef) -> List[cst.Call]:
    """The ``Variable(..., volatile=True)`` calls of ``func`` (not of functions nested in it)."""
    found = []
    for node in walk(func.body):
        if isinstance(node, cst.Call) and sem.names.is_call_to(node, VARIABLE):
            flag = call_arg(node, 2, "volatile")
            if flag is not None and bool_value(flag.value) is True:
                found.append(node)
    return found


def not_derived_leaving(sem: "SemanticModel", func: cst.FunctionDef, seeds: Sequence[cst.CSTNode]) -> List[cst.CSTNode]:
    """The expressions by which ``func`` hands back (returns, yields, raises) a value
    that may carry a graph and is not computed from any of ``seeds``: an item
    of ``return out, penalty`` read from names none of ``seeds`` flows into, and
    holding none of them. A value that carries no graph (a number, an index) or
    a module, parameter or input passed through unchanged are no such value."""
    flows = sem.escape.flows(func)
    seed_ids = {id(s) for s in seeds}
    reach = _derived_names(func, seed_ids)
    params = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}
    found: List[cst.CSTNode] = []
    for sink in flows.sinks:
        expr = sink.expr
        if expr is None:
            continue
        route = sink.final()
        if route is None or route.kind == "backward":
            continue
        if route.kind not in _HANDED_BACK:
            continue  # stored or handed on: ``Escape.leaving`` makes the fix unsafe, not this
        parts = [e.value for e in expr.elements] if isinstance(expr, (cst.Tuple, cst.List)) else [cast(cst.BaseExpression, expr)]
        for part in parts:
            if any(id(n) in seed_ids for n in walk(part)):
                continue
            names = {n.value for n in walk(part) if isinstance(n, cst.Name)}
            if names & reach:
                continue
            if isinstance(part, cst.Name) and part.value in params:
                continue  # handed back as it came in
            if _plain(sem, flows, func, part):
                continue
            found.append(part)
    return found


def not_derived_training(sem: "SemanticModel", func: cst.FunctionDef, seeds: Sequence[cst.CSTNode]) -> List[cst.Call]:
    """The calls of ``func`` (not of functions nested in it) that may train
    (``GradMode.call_may_train``: a test-time adapter's ``adapter.refresh()``) on
    nothing computed from any of ``seeds``: they trained in 0.3, and a guard around
    the whole function would stop them."""
    seed_ids = {id(s) for s in seeds}
    reach = _derived_names(func, seed_ids)
    found: List[cst.Call] = []
    for node in walk(func.body):
        if not isinstance(node, cst.Call) or any(
            id(n) in seed_ids or (isinstance(n, cst.Name) and n.value in reach) for n in walk(node)
        ):
            continue
        if sem.gradmode.call_may_train(node):
            found.append(node)
    return found


def _plain(sem: "SemanticModel", flows: "ScopeFlows", func: cst.FunctionDef, expr: cst.BaseExpression) -> bool:
    """Carries no graph: numbers added up (``n += 1``), arithmetic of such, what the
    flows of ``func`` (``semantic.escape``) or the values (``semantic.values``) show to
    hold no history (``.item()``, an index, a factory)."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(not isinstance(e, cst.StarredElement) and _plain(sem, flows, func, e.value) for e in expr.elements)
    if isinstance(expr, cst.BinaryOperation):
        return _plain(sem, flows, func, expr.left) and _plain(sem, flows, func, expr.right)
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Name) and sem.values.adds_up_numbers(expr):
        return True
    return flows._is_plain(expr) or sem.values.carries_no_graph(expr, func)


_FILLING = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})


def _derived_names(func: cst.FunctionDef, seed_ids: Set[int]) -> Set[str]:
    """The names of ``func`` that may hold something computed from a seed: assigned
    (also ``+=``, a ``for`` target, a walrus) from an expression that holds a seed or
    such a name, or filled with one (``preds.append(...)``, ``acc[i] = ...``). By the
    syntax alone, and including values with no graph: 0.3's volatility followed every
    operation on the volatile input."""
    found: Set[str] = set()

    def holds(expr: cst.CSTNode) -> bool:
        # Exact types, not isinstance(): a miss is a Python-level ABC check, and these
        # walks ask it of every node of the function, round after round.
        return any(id(n) in seed_ids or (type(n) is cst.Name and n.value in found) for n in walk(expr))

    def names_of(target: cst.CSTNode) -> Set[str]:
        while isinstance(target, (cst.Attribute, cst.Subscript)):
            target = target.value  # ``acc[i] = v`` fills ``acc``
        return {n.value for n in walk(target) if isinstance(n, cst.Name)}

    changed = True
    while changed:
        before = len(found)
        for node in walk(func.body, into_functions=True):
            if type(node) is cst.Assign and holds(node.value):
                for t in node.targets:
                    found |= names_of(t.target)
            elif (type(node) is cst.AugAssign or type(node) is cst.AnnAssign or type(node) is cst.NamedExpr) and node.value is not None and holds(node.value):
                found |= names_of(node.target)
            elif type(node) is cst.For and holds(node.iter):
                found |= names_of(node.target)
            elif type(node) is cst.Call and isinstance(node.func, cst.Attribute) and node.func.attr.value in _FILLING:
                if any(holds(a.value) for a in node.args):
                    found |= names_of(node.func.value)
        changed = len(found) != before
    return found
