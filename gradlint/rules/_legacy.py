"""Helpers shared by the legacy ``Variable`` rules (GL001, GL002)."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from gradlint import codegen
from gradlint.fixes import Fix
from gradlint.rule import Rule
from gradlint.semantic.syntax import bool_value, call_arg, is_inplace_method
from gradlint.semantic.tree import walk
from gradlint.semantic.torch_api import CONVERSIONS, REQUIRES_GRAD_FACTORIES, TENSOR_FACTORIES, VARIABLE

# Members whose use depends on which object holds the tensor, not on its values.
_IDENTITY_ATTRS = frozenset({"requires_grad", "requires_grad_", "grad", "register_hook", "retain_grad", "grad_fn"})


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


def unwrap_fix(rule: Rule, node: cst.Call, value: cst.BaseExpression, requires_grad: Optional[cst.Arg], flag: Optional[bool]) -> Fix:
    """GL002's fix of ``Variable(value[, requires_grad])`` (``flag``: the value of
    ``requires_grad``, None if not known): the wrapper removed where that keeps behaviour,
    else the ``.detach()`` (and ``.requires_grad_()``) it performs. GL001 builds it too,
    for a call whose only other argument is ``volatile=False``, a flag with no effect."""
    ctx = rule.ctx
    sem = ctx.semantic
    free = sem.values.carries_no_graph(value, sem.tree.function_scope(node))
    # Dropping the wrapper keeps behaviour only for a tensor made right there (a factory
    # call): a name judged graph-free by how it looks (a loader's batch) may hold a model
    # output, a parameter seen through `as_tensor`, or a leaf that requires grad, and then
    # gradients start flowing where `Variable` cut them. `.detach()` is what it does today.
    fresh = _is_fresh(ctx, value)
    safety = "safe" if fresh else "unsafe"
    if flag is False and free and not fresh and _identity_matters(ctx, node):
        # `x = Variable(batch)` then `x.requires_grad = True` (or an in-place edit, a
        # hook): without the wrapper these land on the loader's own tensor, which then
        # keeps a `.grad` across epochs. `.detach()` is the new object `Variable` made,
        # sharing storage as it did (in 0.3 too).
        free = False
    if flag is False:
        stmt = self_assignment(ctx, node, allow_volatile=False) if free else None
        if stmt is not None:
            return rule.fix(
                rule.replace(stmt, cst.RemovalSentinel.REMOVE, key=("self-assignment", id(stmt))),
                title="Remove the assignment: without `Variable` it assigns the names to themselves",
                applicability="unsafe",
                remove_imports=sem.names.imports_of(VARIABLE),
            )
        new, title = (value, "Remove the `Variable` wrapper") if free else (
            codegen.method_call(value, "detach"),
            "Replace with the `.detach()` it performs",
        )
        if not free:
            safety = "safe"
    elif flag is True and free and _is_factory(ctx, value):
        assert isinstance(value, cst.Call)
        new = codegen.add_keyword(value, "requires_grad", cst.Name("True"))
        title = "Pass `requires_grad=True` to the tensor factory"
        safety = "safe"
    else:
        # `base.requires_grad_()` would turn `base` itself into the leaf: two wrappers of
        # one base would become one leaf whose gradients add up, and `base` would gain a
        # `.grad`. Only a tensor made right there may become the leaf; anything else gets
        # the new leaf `Variable` makes, `.detach().requires_grad_()`.
        args = [] if flag is True else [cst.Arg(requires_grad.value)]  # type: ignore[union-attr]
        base = value if fresh else codegen.method_call(value, "detach")
        new = codegen.method_call(base, "requires_grad_", args)
        title = "Replace with `.requires_grad_()`" if fresh else "Replace with the `.detach().requires_grad_()` it performs"
        safety = "safe"
    return rule.fix(
        rule.replace(node, codegen.keep_parens(node, codegen.atomic(new))),
        applicability=safety,
        title=title,
        remove_imports=sem.names.imports_of(VARIABLE),
    )


def _identity_matters(ctx, node: cst.Call) -> bool:
    """Whether the object ``node`` makes is used as an object of its own: bound to a
    name whose flag, gradient or hooks are set or read, that is edited in place,
    given attributes, or handed where that may happen (stored, returned, passed to a
    function of the file or one not known). Only a name used for reading its values
    (a forward, arithmetic, printing) is not."""
    parent = ctx.parent(node)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
        return False  # ``model(Variable(x))``: a value read where it is made
    name = parent.targets[0].target.value
    scope = ctx.semantic.tree.function_scope(node)
    for ref in walk(scope, into_functions=True):
        if not (isinstance(ref, cst.Name) and ref.value == name) or ref is parent.targets[0].target:
            continue
        holder = ctx.parent(ref)
        if isinstance(holder, cst.Attribute) and holder.value is ref:
            attr = holder.attr.value
            outer = ctx.parent(holder)
            if isinstance(outer, cst.AssignTarget) or attr in _IDENTITY_ATTRS or is_inplace_method(attr):
                return True
        elif isinstance(holder, (cst.AugAssign,)) and holder.target is ref:
            return True  # ``x += noise`` edits the tensor in place
        elif isinstance(holder, cst.Subscript) and holder.value is ref:
            outer = ctx.parent(holder)
            if isinstance(outer, (cst.AssignTarget, cst.AugAssign)):
                return True  # ``x[mask] = 0``
    return False


def _is_fresh(ctx, value: cst.BaseExpression) -> bool:
    """A tensor made right there by a factory (``torch.zeros(3)``, ``torch.from_numpy(a)``),
    maybe converted (``.cuda()``): a new object with no history. ``torch.as_tensor(t)``
    returns ``t`` itself, so it does not count."""
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in CONVERSIONS
        and not ctx.semantic.names.refers_to(value.func, TENSOR_FACTORIES)
    ):
        value = value.func.value
    return (
        isinstance(value, cst.Call)
        and ctx.semantic.names.refers_to(value.func, TENSOR_FACTORIES - {"torch.as_tensor"})
    )


def _is_factory(ctx, value: cst.BaseExpression) -> bool:
    return (
        isinstance(value, cst.Call)
        and ctx.semantic.names.refers_to(value.func, REQUIRES_GRAD_FACTORIES)
        and call_arg(value, None, "requires_grad") is None
        and not any(a.star for a in value.args)
    )
