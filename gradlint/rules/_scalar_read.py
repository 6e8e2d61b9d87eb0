"""The PyTorch 0.3 scalar read of a tensor (``loss.data[0]``): GL003 reports and
fixes it; GL203, which reports other ``.data`` reads, leaves it to GL003."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.syntax import last_name
from gradlint.semantic.torch_api import RESHAPING_METHODS
from gradlint.semantic.tree import walk

# Names under which scalars (losses, metrics) are usually kept.
_SCALAR_NAME = re.compile(
    r"loss|acc|err|correct|metric|score|reward|nll|kld?$|^kl_|mse|bce|cost|criterion|crit$|"
    r"perplexity|ppl|psnr|precision|recall|^dist|_dist$"
)
# Reductions that return a 0-dim tensor when called without a dimension.
_REDUCTIONS = frozenset({"sum", "mean", "norm", "std", "var", "prod", "max", "min", "dist", "numel"})
_NUMERIC_SPEC = re.compile(r"%[-+ #0]*\d*(\.\d+)?[dieEfFgG]|\{[^{}]*:[^{}]*[dieEfFgG%]\}")
_SCALAR_FUNCS = frozenset({"float", "int", "round", "append", "add_scalar", "log_metric", "log_scalar"})


def is_scalar_data_read(ctx, node: cst.Subscript) -> bool:
    """``t.data[0]`` read as a scalar (GL003's finding; GL203 leaves these to it)."""
    return is_data_index(node) and scalar_read(ctx, node) is not None


def is_data_index(node: cst.Subscript) -> bool:
    data = node.value
    return isinstance(data, cst.Attribute) and data.attr.value == "data"


def _index_zero(node: cst.Subscript) -> bool:
    if len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"


def scalar_read(ctx, node: cst.Subscript) -> Optional[cst.BaseExpression]:
    """The tensor whose only element ``node`` reads the PyTorch 0.3 way, where that
    raises IndexError today: ``t.data[0]``, ``t.data.numpy()[0]``,
    ``t.data.cpu().numpy()[0]`` (a 0-dim array indexed), ``total[0]`` of a total
    accumulated from 0-dim tensors; else None."""
    if not _index_zero(node):
        return None
    parent = ctx.parent(node)
    if isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is node:
        return None  # ``out.data[0].cpu()``, ``out.data[0][1]``: a row of a batch
    if isinstance(parent, cst.Call) and parent.func is node:
        return None
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign)) and getattr(parent, "target", None) is node:
        return None  # written, not read
    values = ctx.semantic.values
    inner = node.value
    if isinstance(inner, cst.Name):
        # ``total[0]``: only a total that the dataflow shows to be 0-dim counts.
        bindings = ctx.semantic.scopes.reaching(inner).bindings
        if any(b.form == "aug" for b in bindings) and values.value(inner).shape == "scalar":
            return inner
        return None
    tensor = _through_data(inner)
    if tensor is None:
        return None
    shape = values.value(tensor).shape
    if shape == "batch":
        return None  # evidently has a dimension: ``[0]`` is its first element
    if shape == "scalar" or values.zero_dim_attribute(tensor):
        return tensor
    if _from_foreign_call(ctx, tensor, 0):
        return None  # another package's loss: neither its name nor its use proves 0-dim
    if _scalar_receiver(tensor, ctx.semantic.preview or ctx.semantic.legacy_code) or _bound_to_reduction(ctx, tensor):
        return tensor
    if not _idiomatic(inner):
        # ``n.data.cpu()[0]`` read as a number is as often a one-element tensor's
        # element (which works today) as a 0-dim one: only the receiver can tell.
        return None
    return tensor if _scalar_context(ctx, node, parent) else None


def _from_foreign_call(ctx, expr: cst.BaseExpression, depth: int) -> bool:
    """Whether ``expr`` is, on every path, what a call of another package's class
    instance returned (``loss = criterion(...)`` with warp-ctc's ``CTCLoss``), also
    scaled (``loss = loss / n``): a loss-like name then proves no 0-dim tensor."""
    sem = ctx.semantic
    if depth > bounds.NAME_STEPS:
        return False
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Divide, cst.Multiply)):
        return _from_foreign_call(ctx, expr.left, depth + 1)
    if isinstance(expr, cst.Call):
        return sem.values.foreign_callee(expr.func)
    if not isinstance(expr, cst.Name):
        return False
    reaching = sem.scopes.reaching(expr)
    if not reaching.bindings or reaching.unbound:
        return False
    return all(b.kind == "assign" and b.value is not None and _from_foreign_call(ctx, b.value, depth + 1) for b in reaching.bindings)


def _bound_to_reduction(ctx, expr: cst.BaseExpression) -> bool:
    """A name that holds, on every path to the read, a reduction called without a
    dimension (``n = mask.sum()`` then ``n.data[0]``): the same proof as the call
    read in place, unless something may reshape it in place in between."""
    if not isinstance(expr, cst.Name):
        return False
    reaching = ctx.semantic.scopes.reaching(expr)
    if not reaching.bindings or reaching.unbound:
        return False
    if not all(b.form == "assign" and b.value is not None and _scalar_receiver(b.value, False) for b in reaching.bindings):
        return False
    return not reshaped_in_place(ctx, expr)


def reshaped_in_place(ctx, name: cst.Name) -> bool:
    """Whether the tensor ``name`` holds may change shape in place somewhere in its
    scope (or a function nested in it): a shape-changing in-place method called on
    it (``loss.unsqueeze_(0)``, ``resize_``, ``set_``), or its ``.data`` replaced
    (``loss.data = loss.data.view(1)``). Its binding then says nothing of its shape
    where it is read."""
    scope = ctx.semantic.tree.function_scope(name)
    for node in walk(scope, into_functions=True):
        if not (type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == name.value):
            continue
        parent = ctx.parent(node)
        if node.attr.value in RESHAPING_METHODS and isinstance(parent, cst.Call) and parent.func is node:
            return True
        if node.attr.value == "data" and isinstance(parent, cst.AssignTarget) and parent.target is node:
            return True
    return False


def _idiomatic(expr: cst.BaseExpression) -> bool:
    """``t.data``, ``t.data.numpy()`` or ``t.data.cpu().numpy()``: the 0.3 spellings of a
    scalar read, which a numeric context shows to be one."""
    methods = []
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        methods.append(expr.func.attr.value)
        expr = expr.func.value
    return methods in ([], ["numpy"], ["numpy", "cpu"])


# Methods between ``.data`` and ``[0]`` that keep a 0-dim tensor 0-dim (``.cpu()``,
# ``.float()``) or make it a 0-dim array (``.numpy()``).
_SHAPE_KEEPING = frozenset({"cpu", "cuda", "float", "double", "half", "long", "int", "numpy"})


def _through_data(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``t`` of ``t.data``, ``t.data.numpy()``, ``t.data.cpu()``, ``t.data.cpu().numpy()``:
    ``.data`` followed by argument-less methods that keep the shape."""
    while isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _SHAPE_KEEPING:
        expr = expr.func.value
    if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
        return expr.value
    return None


def _scalar_receiver(receiver: cst.BaseExpression, preview: bool) -> bool:
    """A 0-dim receiver: a reduction called without a dimension (torch's API says so);
    in the preview tier also one named like a scalar (``loss``, ``step["acc"]``), which
    the default tier does not take for proof (issue 26)."""
    if isinstance(receiver, cst.Call) and last_name(receiver.func) in _REDUCTIONS and not receiver.args:
        return True
    if not preview:
        return False
    if isinstance(receiver, cst.Subscript) and len(receiver.slice) == 1:
        key = receiver.slice[0].slice
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
            # ``step["loss"]``: an entry named like a scalar
            return bool(_SCALAR_NAME.search(str(key.value.evaluated_value).lower()))
        return False
    if isinstance(receiver, cst.Call):
        name = last_name(receiver.func)
        return bool(name) and bool(_SCALAR_NAME.search(name.lower()))  # type: ignore[union-attr]
    name = last_name(receiver)
    return bool(name) and bool(_SCALAR_NAME.search(name.lower()))  # type: ignore[union-attr]


def _scalar_context(ctx, node: cst.CSTNode, parent: Optional[cst.CSTNode]) -> bool:
    # Climb through arithmetic to whatever consumes the value.
    child = node
    while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) and not (
        isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Modulo)
    ):
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, cst.AugAssign):
        return parent.value is child
    if isinstance(parent, cst.Comparison):
        return True
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Modulo):
        return _numeric_format(ctx, parent.left)
    if isinstance(parent, cst.Element):  # inside the tuple of ``"..." % (a, b)``
        tup = ctx.parent(parent)
        op = ctx.parent(tup) if tup is not None else None
        if isinstance(op, cst.BinaryOperation) and isinstance(op.operator, cst.Modulo):
            return _numeric_format(ctx, op.left)
        return False
    if isinstance(parent, cst.FormattedStringExpression):
        spec = parent.format_spec
        return spec is not None and bool(spec) and any(
            isinstance(p, cst.FormattedStringText) and re.search(r"[dieEfFgG%]$", p.value) for p in spec
        )
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        if not isinstance(call, cst.Call):
            return False
        name = last_name(call.func)
        if name in _SCALAR_FUNCS:
            return True
        if name == "format" and isinstance(call.func, cst.Attribute):
            return _numeric_format(ctx, call.func.value)
    return False


def _numeric_format(ctx, template: cst.BaseExpression) -> bool:
    if isinstance(template, (cst.SimpleString, cst.ConcatenatedString)):
        return bool(_NUMERIC_SPEC.search(ctx.code_for(template)))
    return False
