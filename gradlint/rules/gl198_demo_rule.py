"""GL198 demo-rule: TODO say in one line what the rule flags.

Scaffolded with a placeholder pattern that works end to end (a bare
``torch.autograd.set_detect_anomaly(True)`` statement): replace it with the
rule's own, and its examples in ``rules/GL198.toml`` with it.
"""

from __future__ import annotations

import libcst as cst

from gradlint.rule import Rule


class DemoRule(Rule):
    code = "GL198"
    # The prefilter: a file with none of these substrings is never parsed for this rule.
    triggers = ("set_detect_anomaly",)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not call.args:
            return
        # Qualified names, not spellings: ``from torch import autograd`` and aliases count.
        if "torch.autograd.set_detect_anomaly" not in self.ctx.semantic.names.qualnames(call.func):
            return
        mode = call.args[0].value
        if not (isinstance(mode, cst.Name) and mode.value == "True"):
            return
        fix = self.fix(self.replace(mode, cst.Name("False")))
        self.report(call, fix=fix, call=self.ctx.code_for(call))
