"""GL102 grad-mode-not-called: ``with torch.no_grad:`` enters the class, which raises."""

from __future__ import annotations

import re

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._gates import ALL_GUARDS
from gradlint.rules._safety import error_may_be_caught

_WITH_ERROR = (
    "is the class, not a context manager: entering it raises "
    "`TypeError: 'type' object does not support the context manager protocol` "
    "(`AttributeError: __enter__` before Python 3.11)"
)
_DECORATOR_ERROR = (
    "as a bare decorator fails when the function is defined: "
    "`TypeError: set_grad_enabled(): argument 'enabled' (position 1) must be bool, not function`"
)


class GradModeNotCalled(Rule):
    code = "GL102"
    triggers = ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled")
    # a guard not called there (or imported under another name, which may be the one used)
    gates = (re.compile(ALL_GUARDS + r"(?![\s\\]*\()"),)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        guard = self.ctx.semantic.gradmode.guard(node.item)
        if guard is None or guard.called:
            return
        expr = self.ctx.code_for(node.item)
        if guard.kind == "set_grad_enabled":
            # Which mode was meant is for the author to say.
            self.report(node.item, expr=expr, problem=_WITH_ERROR, call=f"{expr}(False)")
            return
        new = cst.Call(func=node.item)
        # The original raises at the `with`; the fixed one runs (the error goes). Inside a
        # `try` whose handler catches that error, the code relied on the fallback instead.
        safety = "unsafe" if error_may_be_caught(self.ctx, node) else "safe"
        fix = self.fix(self.replace(node.item, new), title=f"Call it: `{expr}()`", applicability=safety)
        self.report(node.item, fix=fix, expr=expr, problem=_WITH_ERROR, call=f"{expr}()")

    def visit_Decorator(self, node: cst.Decorator) -> None:
        # Bare @torch.no_grad, @torch.enable_grad and @torch.inference_mode work;
        # bare @torch.set_grad_enabled does not.
        guard = self.ctx.semantic.gradmode.guard(node.decorator)
        if guard is not None and not guard.called and guard.kind == "set_grad_enabled":
            expr = self.ctx.code_for(node.decorator)
            self.report(node.decorator, expr=expr, problem=_DECORATOR_ERROR, call=f"{expr}(False)")
