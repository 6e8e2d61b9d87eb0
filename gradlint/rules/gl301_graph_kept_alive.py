"""GL301 graph-kept-alive: a loop keeps each iteration's autograd graph alive in an accumulator."""

from __future__ import annotations

import re
from typing import Dict, Iterator

import libcst as cst

from gradlint import codegen
from gradlint.rule import Rule
from gradlint.rules._gates import LOOP_STATEMENT
from gradlint.rules._inplace import edit_text, short
from gradlint.semantic.escape import key as escape_key
from gradlint.semantic.tree import walk


class GraphKeptAlive(Rule):
    code = "GL301"
    triggers = ("for", "while")
    gates = (
        re.compile(LOOP_STATEMENT),
        # what the visitors below check
        re.compile(
            r"[-+]="  # total += loss
            r"|\bappend\b"  # losses.append(loss)
            r"|\][\s)\\]*=(?!=)"  # history[i] = out
            r"|\b(\w+)[ \t]*=[\s(\\]*\1\b[\s)\\]*[-+]"  # total = total + loss
            r"|\+[\s(\\]*\w+[ \t)\\]*(?:[\r\n;#]|\Z)"  # total = loss + total
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._training_loops: Dict[int, bool] = {}

    # On leaving, not visiting: the operands have been walked by then, so their
    # parents are known without a walk over the whole file.

    # ``total += loss`` / ``total = total + loss``
    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
            self._check(node, node.target, node.value)

    def leave_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        value = node.value
        if isinstance(target, cst.Subscript):  # ``history[i] = out``
            self._check(node, target, value)
        elif isinstance(target, cst.Name) and isinstance(value, cst.BinaryOperation):
            if not isinstance(value.operator, (cst.Add, cst.Subtract)):
                return
            left, right = value.left, value.right
            if isinstance(left, cst.Name) and left.value == target.value:
                self._check(node, target, right)
            elif isinstance(right, cst.Name) and right.value == target.value and isinstance(value.operator, cst.Add):
                self._check(node, target, left)

    # ``losses.append(loss)``
    def leave_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "append" and len(node.args) == 1:
            arg = node.args[0]
            if arg.keyword is None and not arg.star:
                self._check(node, func.value, arg.value)

    def _check(self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        sem = self.ctx.semantic
        loop = sem.tree.enclosing_loop(node)
        if loop is None or not self._outlives(target, loop):
            return
        key = escape_key(target)
        if key is None:
            return
        # The value's history first: it looks only at what was computed before this
        # point; where the total goes looks at the whole function.
        if sem.values.graph_source(value) is None:
            return
        flows = sem.escape.flows(sem.tree.function_scope(node))
        if flows.routes([key], _TO_BACKWARD):
            return  # accumulated on purpose, to call backward() on the total
        if flows.routes([key], _TO_CALLER) and not self._trains(loop) and not self._over_batches(loop):
            return  # a sum of losses (over heads, layers, chunks) returned for the caller's backward()
        python_number = self._python_number(target, loop)
        method = "item" if python_number else "detach"
        carriers = list(self._carriers(value))
        if not carriers:
            return
        edits = [self.replace(c, codegen.method_call(c, method)) for c in carriers]
        first = _text(self.ctx, carriers[0])
        remedy = f"{first}.{method}()"
        self.report(
            node,
            fix=self.fix(*edits, title=f"Keep `{remedy}` instead"),
            statement=short(self.ctx, node, 50) or edit_text(self.ctx, node),
            value=_text(self.ctx, value),
            target=_text(self.ctx, target),
            remedy=remedy,
            held=_HELD_AFTER_BACKWARD if self._trains(loop) else _HELD,
        )

    # -- what outlives the iteration ------------------------------------------------

    def _outlives(self, target: cst.BaseExpression, loop: cst.CSTNode) -> bool:
        """Whether ``target`` is bound before the loop (or is an attribute, which outlives it)."""
        base = target.value if isinstance(target, cst.Subscript) else target
        if isinstance(base, cst.Attribute):
            return True
        if not isinstance(base, cst.Name):
            return False
        sem = self.ctx.semantic
        scope = sem.tree.function_scope(loop)
        binds = sem.scopes.bindings(scope).get(base.value)
        if not binds:
            return scope is not self.ctx.module and base.value in sem.scopes.bindings(self.ctx.module)
        return any(b.node is not None and not sem.tree.is_inside(loop, b.node) for b in binds)

    def _python_number(self, target: cst.BaseExpression, loop: cst.CSTNode) -> bool:
        """``total = 0`` / ``0.0`` (and nothing but numbers and the accumulation itself),
        and never used as a tensor (``total.item()`` would fail on the float ``.item()`` makes)."""
        if not isinstance(target, cst.Name):
            return False
        sem = self.ctx.semantic
        scope = sem.tree.function_scope(loop)
        for node in walk(scope):
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == target.value:
                return False
        binds = sem.scopes.bindings(scope).get(target.value, [])
        numbers = 0
        for b in binds:
            if isinstance(b.node, cst.AugAssign):
                continue
            if b.kind != "assign" or b.value is None:
                return False
            if _is_number(b.value):
                numbers += 1
            elif not (isinstance(b.value, cst.BinaryOperation) and _mentions(b.value, target.value)):
                return False
        return numbers > 0

    # -- deliberate accumulation ------------------------------------------------------

    def _trains(self, loop: cst.CSTNode) -> bool:
        """The loop body calls ``backward()``: the accumulated values are for logging."""
        found = self._training_loops.get(id(loop))
        if found is None:
            found = self._training_loops[id(loop)] = any(
                isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward"
                for node in walk(loop)
            )
        return found

    def _over_batches(self, loop: cst.CSTNode) -> bool:
        sem = self.ctx.semantic
        return isinstance(loop, cst.For) and sem.values.is_loader(loop.iter, sem.tree.function_scope(loop))

    def _carriers(self, value: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
        """The operands of ``value`` that hold the history (``loss`` in ``loss * n``)."""
        sem = self.ctx.semantic
        if isinstance(value, cst.BinaryOperation) and not value.lpar:
            yield from self._carriers(value.left)
            yield from self._carriers(value.right)
        elif isinstance(value, cst.UnaryOperation) and not value.lpar:
            yield from self._carriers(value.expression)
        elif sem.values.graph_source(value) is not None or sem.values.requires_grad_leaf(value) is not None:
            yield value


# Routes (``semantic.escape``) that make an accumulation deliberate.
_TO_BACKWARD = frozenset({"backward", "helper"})
_TO_CALLER = frozenset({"return", "yield"})

# What the kept graph holds: a backward() in the loop frees the saved activations
# (their storage), but not the graph's nodes, which stay referenced from the total.
_HELD = ", with the activations it saved"
_HELD_AFTER_BACKWARD = " (`backward()` frees its saved activations, but its graph nodes stay referenced)"


def _text(ctx, expr: cst.BaseExpression) -> str:
    """``loss``; ``F.nll_loss(...)`` for a long call; ``...`` for anything else too long."""
    whole = short(ctx, expr, 40)
    if whole is not None:
        return whole
    if isinstance(expr, cst.Call):
        return f"{short(ctx, expr.func, 36) or '...'}(...)"
    return "..."


def _mentions(expr: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(expr))


def _is_number(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value in ("float", "int")
        and all(isinstance(a.value, (cst.Integer, cst.Float, cst.SimpleString)) for a in expr.args)
    )
