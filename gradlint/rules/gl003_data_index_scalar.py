"""GL003 data-index-scalar: ``loss.data[0]`` raises IndexError on 0-dim tensors; use ``.item()``."""

from __future__ import annotations

import re

import libcst as cst

from gradlint import codegen
from gradlint.rule import AnyOf, Rule
from gradlint.rules._gates import data_scalar_reads
from gradlint.rules._scalar_read import is_data_index, scalar_read
from gradlint.semantic.torch_api import TORCH_04
from gradlint.semantic.versions import runs_only_before

class DataIndexScalar(Rule):
    code = "GL003"
    # ``loss.data[0]``, ``loss.data.cpu().numpy()[0]``, and ``total[0]`` after ``total += loss.data``
    triggers = (".data",)
    gates = (AnyOf(*map(re.compile, data_scalar_reads())),)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        receiver = scalar_read(self.ctx, node)
        if receiver is None or runs_only_before(self.ctx.semantic, node, TORCH_04):
            return
        text = shown(self.ctx, receiver)
        read = f"{text}.data[0]" if is_data_index(node) else shown(self.ctx, node, 40)
        new = codegen.keep_parens(node, codegen.method_call(receiver, "item"))
        # On a 0-dim tensor the original raises and `.item()` gives the number (the error
        # goes away). Anywhere else `.item()` changes what runs: a one-element tensor's
        # `data[0]` is a 0-dim tensor (printed `tensor(1.1007)`, summed in float32) where
        # `.item()` is a Python float; a longer tensor, a numpy array, a list or an object
        # whose attribute is named `data` make `.item()` raise or not exist.
        # Only a reduction, a functional loss or a dimension bound of 0 proves 0-dim: the
        # dataflow's shape facts also come from names (`criterion(...)`), enough to report
        # but not to rewrite safely.
        safety = "safe" if _zero_dim(self.ctx, receiver) else "unsafe"
        self.report(node, fix=self.fix(self.replace(node, new), applicability=safety, receiver=text), receiver=text, read=read)


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


# Reductions that give a 0-dim tensor when called with no argument at all.
_ZERO_DIM_REDUCTIONS = frozenset({"sum", "mean", "norm", "std", "var", "prod", "max", "min", "amax", "amin", "logsumexp"})


# ``torch.nn.functional`` losses: 0-dim unless ``reduction``/``reduce`` says otherwise.
_FUNCTIONAL_LOSSES = frozenset(
    f"torch.nn.functional.{n}"
    for n in (
        "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
        "binary_cross_entropy_with_logits kl_div poisson_nll_loss gaussian_nll_loss hinge_embedding_loss "
        "margin_ranking_loss multilabel_margin_loss multilabel_soft_margin_loss multi_margin_loss "
        "soft_margin_loss cosine_embedding_loss triplet_margin_loss ctc_loss"
    ).split()
)


def _zero_dim(ctx, receiver: cst.BaseExpression, depth: int = 0) -> bool:
    """Evidence that ``receiver`` is a 0-dim tensor: a reduction called with no argument
    (``out.sum()``), a ``torch.nn.functional`` loss with its default reduction, or a
    name bound once in its scope, to one of those; or a bound of 0 dimensions that
    torch's shape rules prove (an element of iterating a row of ``x.t()``)."""
    if depth == 0 and ctx.semantic.values.value(receiver).max_dims == 0:
        return True
    if isinstance(receiver, cst.Call):
        func = receiver.func
        if isinstance(func, (cst.Name, cst.Attribute)) and ctx.semantic.names.refers_to(func, _FUNCTIONAL_LOSSES):
            return not any(a.keyword is not None and a.keyword.value in ("reduction", "reduce") for a in receiver.args) and not any(
                a.star for a in receiver.args
            )
        return isinstance(func, cst.Attribute) and func.attr.value in _ZERO_DIM_REDUCTIONS and not receiver.args
    if isinstance(receiver, cst.Name) and depth == 0:
        sem = ctx.semantic
        binds = sem.scopes.bindings(sem.tree.function_scope(receiver)).get(receiver.value, [])
        return len(binds) == 1 and binds[0].kind == "assign" and binds[0].value is not None and _zero_dim(ctx, binds[0].value, 1)
    return False
