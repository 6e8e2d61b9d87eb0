"""GL302 module-requires-grad-attribute: ``model.requires_grad = False`` freezes nothing."""

from __future__ import annotations

import re

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._freezing import requires_grad_call, single_assignment
from gradlint.rules._inplace import short


class ModuleRequiresGradAttribute(Rule):
    code = "GL302"
    triggers = (".requires_grad",)
    gates = (re.compile(r"\.requires_grad[\s)\\]*=(?!=)"),)  # assigned

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
                fix = self.fix(self.replace(node, requires_grad_call(target, node.value)), module=module, value=value)
            self.report(target, fix=fix, module=module, value=value)
