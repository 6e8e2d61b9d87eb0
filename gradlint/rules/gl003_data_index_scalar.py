"""GL003 data-index-scalar: ``loss.data[0]`` raises IndexError on 0-dim tensors; use ``.item()``."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint import codegen
from gradlint.fix import Fix
from gradlint.rule import AnyOf, Rule
from gradlint.rules._gates import data_scalar_reads
from gradlint.rules._scalar_read import is_data_index, reshaped_in_place, scalar_read
from gradlint.semantic import bounds
from gradlint.semantic.torch_api import TORCH_04, ZERO_DIM_REDUCTIONS
from gradlint.semantic.versions import runs_only_before

class DataIndexScalar(Rule):
    code = "GL003"
    # ``loss.data[0]``, ``loss.data.cpu().numpy()[0]``, and ``total[0]`` after ``total += loss.data``
    triggers = (".data",)
    gates = (AnyOf(*map(re.compile, data_scalar_reads())),)

    _other_library: Optional[bool] = None

    def _other_library_module(self) -> bool:
        if self._other_library is None:
            imports = self.ctx.semantic.names.index.records
            self._other_library = bool(imports) and _TORCH_WORDS.search(self.ctx.source) is None
        return self._other_library

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.preview and self._other_library_module():
            return
        receiver = scalar_read(self.ctx, node)
        if receiver is None or runs_only_before(self.ctx.semantic, node, TORCH_04):
            return
        if _reduced_along_later_dim(receiver):
            return  # ``prob.max(1)[1].data.cpu().numpy()[0]``: at least 1-dim, the read works
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
        fix: Optional[Fix] = self.fix(self.replace(node, new), applicability=safety, receiver=text)
        if safety == "unsafe" and unreduced_loss(self.ctx, receiver):
            # One value per sample: `.item()` raises where `data[0]` read the first one
            # (a number in 0.3): even an unsafe fix would crash, and migrate leaves it.
            fix = None
        self.report(node, fix=fix, receiver=text, read=read)


# A module that imports its dependencies and never names torch or autograd (not in
# an import, a call, a comment or a docstring): its `.data` is some other library's
# (a CAN message's bytes, a record's payload).
_TORCH_WORDS = re.compile(r"\b(?:torch|Variable|autograd|backward)\b")


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
    if depth == 0 and isinstance(receiver, cst.Name) and reshaped_in_place(ctx, receiver):
        return False  # ``loss.unsqueeze_(0)``: its shape is not what it was bound to
    if depth == 0 and ctx.semantic.values.value(receiver).max_dims == 0:
        return True
    if isinstance(receiver, cst.Call):
        func = receiver.func
        if isinstance(func, (cst.Name, cst.Attribute)) and ctx.semantic.names.refers_to(func, _FUNCTIONAL_LOSSES):
            return not any(a.keyword is not None and a.keyword.value in ("reduction", "reduce") for a in receiver.args) and not any(
                a.star for a in receiver.args
            )
        return isinstance(func, cst.Attribute) and func.attr.value in ZERO_DIM_REDUCTIONS and not receiver.args
    if isinstance(receiver, cst.Name) and depth == 0:
        sem = ctx.semantic
        binds = sem.scopes.bindings(sem.tree.function_scope(receiver)).get(receiver.value, [])
        return len(binds) == 1 and binds[0].kind == "assign" and binds[0].value is not None and _zero_dim(ctx, binds[0].value, 1)
    return False




def unreduced_loss(ctx, receiver: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether ``receiver`` is proven a loss per element: a functional loss or a call
    of a loss module built with ``reduction="none"`` or ``reduce=False``, or a name
    bound once to one."""
    if depth > bounds.NAME_STEPS:
        return False
    sem = ctx.semantic
    if isinstance(receiver, cst.Name):
        binds = sem.scopes.bindings(sem.tree.function_scope(receiver)).get(receiver.value, [])
        if len(binds) != 1 and sem.tree.function_scope(receiver) is not sem.module:
            binds = binds or sem.scopes.bindings(sem.module).get(receiver.value, [])
        return (
            len(binds) == 1
            and binds[0].kind == "assign"
            and binds[0].value is not None
            and unreduced_loss(ctx, binds[0].value, depth + 1)
        )
    if not isinstance(receiver, cst.Call) or not isinstance(receiver.func, (cst.Name, cst.Attribute)):
        return False
    if sem.names.refers_to(receiver.func, _FUNCTIONAL_LOSSES):
        return _unreduced(receiver)
    callee = receiver.func
    if isinstance(callee, cst.Name):
        # ``crit = nn.CrossEntropyLoss(reduce=False)`` then ``crit(out, y)``
        binds = sem.scopes.visible(callee.value, callee).bindings
        if len(binds) == 1 and binds[0].kind == "assign" and isinstance(binds[0].value, cst.Call):
            built = binds[0].value
            if isinstance(built.func, (cst.Name, cst.Attribute)) and any(
                q.startswith("torch.nn.") and q.endswith("Loss") for q in sem.names.qualnames(built.func)
            ):
                return _unreduced(built)
    return False


def _unreduced(call: cst.Call) -> bool:
    for arg in call.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value == "reduction" and isinstance(arg.value, cst.SimpleString):
            if arg.value.evaluated_value == "none":
                return True
        if arg.keyword.value == "reduce" and isinstance(arg.value, cst.Name) and arg.value.value == "False":
            return True
    return False


# Reductions that drop the one dimension they are given (and return values, or
# values and indices, of that shape).
_DIM_REDUCTIONS = frozenset(
    "max min sum mean prod argmax argmin std var norm logsumexp median mode kthvalue nansum nanmean amax amin".split()
)


def _reduced_along_later_dim(receiver: cst.BaseExpression) -> bool:
    """``x.max(1)``, ``x.max(1)[1]``, ``x.sum(dim=2)``: a reduction along a dimension
    numbered 1 or more drops that one of at least two, so what is left has at least
    one dimension and ``[0]`` reads its first element on any torch."""
    if isinstance(receiver, cst.Subscript) and len(receiver.slice) == 1:
        index = receiver.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
            receiver = receiver.value
    if not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute)):
        return False
    if receiver.func.attr.value not in _DIM_REDUCTIONS:
        return False
    dim = None
    for i, arg in enumerate(receiver.args):
        if arg.keyword is not None and arg.keyword.value == "keepdim":
            return False  # kept dims: still at least one, but leave the flag to whoever reads it
        if (arg.keyword is None and i == 0) or (arg.keyword is not None and arg.keyword.value == "dim"):
            dim = arg.value
    return isinstance(dim, cst.Integer) and int(dim.value) >= 1
