"""GL003 data-index-scalar: ``loss.data[0]`` raises IndexError on 0-dim tensors; use ``.item()``."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint import codegen
from gradlint.rule import Rule
from gradlint.semantic.syntax import last_name

# Names under which scalars (losses, metrics) are usually kept.
_SCALAR_NAME = re.compile(
    r"loss|acc|err|correct|metric|score|reward|nll|kld?$|^kl_|mse|bce|cost|criterion|crit$|"
    r"perplexity|ppl|psnr|precision|recall|^dist|_dist$"
)
# Reductions that return a 0-dim tensor when called without a dimension.
_REDUCTIONS = frozenset({"sum", "mean", "norm", "std", "var", "prod", "max", "min", "dist", "numel"})
_NUMERIC_SPEC = re.compile(r"%[-+ #0]*\d*(\.\d+)?[dieEfFgG]|\{[^{}]*:[^{}]*[dieEfFgG%]\}")
_SCALAR_FUNCS = frozenset({"float", "int", "round", "append", "add_scalar", "log_metric", "log_scalar"})


class DataIndexScalar(Rule):
    code = "GL003"
    triggers = (".data[",)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not is_scalar_data_read(self.ctx, node):
            return
        receiver = node.value.value  # type: ignore[attr-defined]
        text = shown(self.ctx, receiver)
        new = codegen.keep_parens(node, codegen.method_call(receiver, "item"))
        self.report(node, fix=self.fix(self.replace(node, new), receiver=text), receiver=text)


def shown(ctx, expr: cst.BaseExpression, limit: int = 30) -> str:
    """``expr`` as a message quotes it: its code when short and on one line, else
    the same expression with call arguments and subscripts elided
    (``F.nll_loss(...)``), so the reader still recognises it."""
    text = ctx.code_for(expr)
    if len(text) <= limit and "\n" not in text:
        return text
    if isinstance(expr, cst.Call):
        return f"{shown(ctx, expr.func, limit)}({'...' if expr.args else ''})"
    if isinstance(expr, cst.Attribute):
        return f"{shown(ctx, expr.value, limit)}.{expr.attr.value}"
    if isinstance(expr, cst.Subscript):
        return f"{shown(ctx, expr.value, limit)}[...]"
    return "(...)"


def is_scalar_data_read(ctx, node: cst.Subscript) -> bool:
    """``t.data[0]`` read as a scalar (GL003's finding; GL203 leaves these to it)."""
    data = node.value
    if not (isinstance(data, cst.Attribute) and data.attr.value == "data") or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"):
        return False
    parent = ctx.parent(node)
    if isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is node:
        return False  # ``out.data[0].cpu()``, ``out.data[0][1]``: a row of a batch
    if isinstance(parent, cst.Call) and parent.func is node:
        return False
    return _scalar_receiver(data.value) or _scalar_context(ctx, node, parent)


def _scalar_receiver(receiver: cst.BaseExpression) -> bool:
    if isinstance(receiver, cst.Call):
        name = last_name(receiver.func)
        if name in _REDUCTIONS and not receiver.args:
            return True
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
        return bool(spec) and any(
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
