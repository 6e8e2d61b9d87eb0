"""GL107 grad-guard-not-entered: ``torch.no_grad()`` on its own does nothing."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.rule import AnyOf, Rule
from gradlint.semantic.gradmode import Guard
from gradlint.semantic.tree import walk

_FORMS = {
    "no_grad": "gradients stay enabled",
    "inference_mode": "inference mode is not entered and gradients stay enabled",
    "enable_grad": "gradients stay as they were",
}


class GradGuardNotEntered(Rule):
    code = "GL107"
    triggers = ("no_grad", "inference_mode", "enable_grad")
    gates = (
        AnyOf(
            # imported under another name ...
            re.compile(r"(?:no_grad|inference_mode|enable_grad)\s+as\b"),
            # ... or a guard called at the start of a statement, or assigned to a name
            re.compile(
                r"(?m)(?:^|[;:])[\s(\\]*(?:\w+[\s)\\]*=[\s(\\]*)?(?:\w+[\s\\]*\.[\s\\]*)*"
                r"(?:no_grad|inference_mode|enable_grad)[\s\\]*\("
            ),
        ),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        self._check(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        guard = self._guard(node.value)
        if guard is None:
            return  # before the walk below: it is over the whole scope, for every assignment
        name = node.targets[0].target
        sem = self.ctx.semantic
        scope = sem.tree.function_scope(node)
        body = scope if isinstance(scope, cst.Module) else scope.body
        # Any other mention (``with ctx:``, ``@ctx``, ``ctx.__enter__()``, returned) may enter it.
        if any(isinstance(n, cst.Name) and n.value == name.value and n is not name for n in walk(body, into_functions=True)):
            return
        self._report(node.value, guard)

    def _check(self, value: cst.BaseExpression) -> None:
        guard = self._guard(value)
        if guard is not None:
            self._report(value, guard)

    def _guard(self, value: cst.BaseExpression) -> Optional[Guard]:
        """The guard ``value`` calls, if it is one of those that only act when entered."""
        guard = self.ctx.semantic.gradmode.guard(value)
        return guard if guard is not None and guard.called and guard.kind in _FORMS else None

    def _report(self, value: cst.BaseExpression, guard: Guard) -> None:
        self.report(value, call=self.ctx.code_for(value), effect=_FORMS[guard.kind])
