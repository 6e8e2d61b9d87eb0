"""GL302 module-requires-grad-attribute: ``model.requires_grad = False`` freezes nothing."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._freezing import requires_grad_call, single_assignment
from gradlint.rules._inplace import short
from gradlint.semantic.tree import walk


class ModuleRequiresGradAttribute(Rule):
    code = "GL302"
    triggers = (".requires_grad",)
    gates = (re.compile(r"\.requires_grad[\s)\\]*=(?!=)"),)  # assigned

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._read_back: Optional[bool] = None

    def visit_Assign(self, node: cst.Assign) -> None:
        sem = self.ctx.semantic
        for t in node.targets:
            target = t.target
            if not (isinstance(target, cst.Attribute) and target.attr.value == "requires_grad"):
                continue
            if not sem.modules.is_module(target.value):
                continue
            module = short(self.ctx, target.value, 30) or "module"
            value = short(self.ctx, node.value, 30) or "..."
            fix = None
            if single_assignment(node) is target:
                fix = self.fix(
                    self.replace(node, requires_grad_call(target, node.value)),
                    applicability=self._safety(node.value),
                    module=module,
                    value=value,
                )
            self.report(target, fix=fix, module=module, value=value)

    def _safety(self, value: cst.BaseExpression) -> str:
        """Safe only for ``= True``, which changes nothing on parameters that already
        require grad, and only where no code reads the attribute back (the call does
        not set it, so a later ``model.requires_grad`` would raise AttributeError).
        ``= False`` really freezes the parameters: the intended effect, but gradients
        change, so it is unsafe; any other value may be no bool (``None`` raises)."""
        if not (isinstance(value, cst.Name) and value.value == "True"):
            return "unsafe"
        if self._read_back is None:
            self._read_back = any(
                isinstance(n, cst.Attribute)
                and n.attr.value == "requires_grad"
                and not (isinstance(self.ctx.parent(n), cst.AssignTarget))
                and self.ctx.semantic.modules.is_module(n.value)
                for n in walk(self.ctx.module, into_functions=True)
            )
        return "unsafe" if self._read_back else "safe"
