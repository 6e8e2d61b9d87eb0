"""GL002 variable-wrapper: ``Variable(x)`` silently detaches ``x`` on today's torch."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._legacy import unwrap_fix
from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.versions import runs_only_before
from gradlint.semantic.torch_api import TORCH_04, VARIABLE

_SHORT = 24


class VariableWrapper(Rule):
    code = "GL002"
    triggers = ("Variable",)

    def visit_Call(self, node: cst.Call) -> None:
        sem = self.ctx.semantic
        if not sem.names.is_call_to(node, VARIABLE) or runs_only_before(sem, node, TORCH_04):
            return
        if call_arg(node, 2, "volatile") is not None:
            return  # GL001's finding
        data = call_arg(node, 0, "data")
        requires_grad = call_arg(node, 1, "requires_grad")
        known = {id(a) for a in (data, requires_grad) if a is not None}
        if data is None or any(id(a) not in known for a in node.args):
            self.report(node, equivalent="a detached alias of its argument (`.detach()`)")
            return
        flag: Optional[bool] = False if requires_grad is None else bool_value(requires_grad.value)
        x = self.ctx.code_for(data.value)
        short = len(x) <= _SHORT and "\n" not in x
        if flag is False:
            form = ".detach()"
        elif flag is True:
            form = ".detach().requires_grad_()"
        else:
            form = ".detach().requires_grad_(...)"
        equivalent = f"`{x}{form}`" if short else f"its argument's `{form}`"
        self.report(node, fix=unwrap_fix(self, node, data.value, requires_grad, flag), equivalent=equivalent)
