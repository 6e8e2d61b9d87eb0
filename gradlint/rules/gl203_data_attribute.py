"""GL203 data-attribute: reading ``.data`` instead of ``.detach()`` (off by default)."""

from __future__ import annotations

import re

import libcst as cst

from gradlint import codegen
from gradlint.rule import Rule
from gradlint.rules._gates import tensor_data
from gradlint.rules._inplace import short
from gradlint.rules._scalar_read import is_scalar_data_read
from gradlint.semantic.syntax import inplace_edit
from gradlint.semantic.tree import walk


class DataAttribute(Rule):
    code = "GL203"
    triggers = (".data",)
    gates = (
        re.compile("torch"),  # see __init__
        # ``.data`` of a possible tensor, neither assigned (``p.data = t``) nor in
        # ``from x.data.y import z``
        re.compile(tensor_data() + r"(?!\s*=[^=]|(?:[ \t]*\.[ \t]*\w+)*[ \t]+import\b)"),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._uses_torch = "torch" in ctx.source

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "data" or not self._uses_torch:
            return
        sem = self.ctx.semantic
        parent = self.ctx.parent(node)
        if isinstance(parent, (cst.ImportAlias, cst.ImportFrom, cst.Attribute)) and _in_import(self.ctx, node):
            return  # ``import torch.utils.data``, ``from torch.utils.data import ...``
        if not sem.values.is_tensor_data(node):
            return
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is node
        ):
            return  # a write (``p.data = ...``) or GL202's edit (``p.data -= ...``)
        if self._part_of_data_edit(node) or self._bound_to_edited_alias(node):
            return  # GL202 reports these (and its fix removes this `.data`)
        if isinstance(parent, cst.Subscript) and parent.value is node and is_scalar_data_read(self.ctx, parent):
            return  # ``loss.data[0]`` read as a number: GL003's finding, fixed to ``loss.item()``
        receiver = short(self.ctx, node.value) or "x"
        fix = None
        if sem.values.proven_tensor_or_parameter(node.value):
            # ``.detach()`` exists on tensors only; `.data` of anything else stays as it is
            new = codegen.keep_parens(node, codegen.method_call(node.value, "detach"))
            fix = self.fix(self.replace(node, new), receiver=receiver)
        self.report(node, fix=fix, receiver=receiver)

    def _part_of_data_edit(self, node: cst.Attribute) -> bool:
        """Inside an in-place edit through ``.data`` (its receiver or its arguments)."""
        sem = self.ctx.semantic
        cur = self.ctx.parent(node)
        while cur is not None and not isinstance(cur, (cst.BaseStatement, cst.Lambda)):
            receiver = inplace_edit(cur)
            if receiver is not None:
                alias = sem.values.storage_alias(receiver)
                if alias is not None and alias.kind == "data" and not alias.through_name:
                    return True
            cur = self.ctx.parent(cur)
        return False

    def _bound_to_edited_alias(self, node: cst.Attribute) -> bool:
        """``d_p = p.grad.data`` where ``d_p`` is then edited in place (GL202's finding)."""
        sem = self.ctx.semantic
        assign = self.ctx.parent(node)
        if not (isinstance(assign, cst.Assign) and assign.value is node):
            return False
        for sub in walk(sem.tree.function_scope(node)):
            receiver = inplace_edit(sub)
            if receiver is not None and not isinstance(receiver, cst.Call):
                alias = sem.values.storage_alias(receiver)
                if alias is not None and alias.origin is node:
                    return True
        return False


def _in_import(ctx, node: cst.CSTNode) -> bool:
    cur = ctx.parent(node)
    while cur is not None and not isinstance(cur, cst.BaseStatement):
        if isinstance(cur, (cst.Import, cst.ImportFrom)):
            return True
        cur = ctx.parent(cur)
    return False
