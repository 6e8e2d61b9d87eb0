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
# Measured on torch 2.13: on an ``async def`` a grad-mode decorator wraps the call that
# creates the coroutine; the body runs when awaited, in the caller's grad mode.
_ASYNC_EFFECTS = {
    "no_grad": "its body runs with gradients enabled",
    "inference_mode": "its body runs outside inference mode, with gradients enabled",
    "enable_grad": "its body runs in the caller's grad mode",
    "set_grad_enabled": "its body runs in the caller's grad mode",
}


class GradGuardNotEntered(Rule):
    code = "GL107"
    triggers = ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled")
    gates = (
        AnyOf(
            # imported under another name ...
            re.compile(r"(?:no_grad|inference_mode|enable_grad)\s+as\b"),
            # ... or a guard called at the start of a statement, or assigned to a name
            re.compile(
                r"(?m)(?:^|[;:])[\s(\\]*(?:\w+[\s)\\]*=[\s(\\]*)?(?:\w+[\s\\]*\.[\s\\]*)*"
                r"(?:no_grad|inference_mode|enable_grad)[\s\\]*\("
            ),
            # ... or a decorator of an ``async def``
            re.compile(r"\basync[\s\\]+def\b"),
        ),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.asynchronous is None:
            return
        for dec in node.decorators:
            guard = self.ctx.semantic.gradmode.guard(dec.decorator)
            # A bare ``@torch.set_grad_enabled`` fails when the function is defined: not this.
            if guard is None or guard.kind not in _ASYNC_EFFECTS or not (guard.called or guard.kind != "set_grad_enabled"):
                continue
            call = self.ctx.code_for(dec.decorator)
            self.report(
                dec.decorator,
                problem=f"`@{call}` on an `async def` is entered and left when a call creates the coroutine, before any of it runs",
                effect=_ASYNC_EFFECTS[guard.kind],
                advice=(
                    "enter the guard in the body, around code with no `await` in it (grad mode is per thread, "
                    "and other tasks run during an `await`), or decorate a plain function it calls"
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
            return
        # ``torch.enable_grad()(closure)`` as a statement: the guard decorates the
        # callable and the guarded function is dropped, so the callable never runs.
        if isinstance(value, cst.Call) and len(value.args) == 1 and not value.args[0].star and value.args[0].keyword is None:
            guard = self._guard(value.func)
            if guard is not None:
                call, wrapped = self.ctx.code_for(value.func), self.ctx.code_for(value.args[0].value)
                self.report(
                    value,
                    problem=f"`{call}({wrapped})` wraps `{wrapped}` in a guarded function and throws that function away",
                    effect=f"`{wrapped}` is never called here, under the guard or otherwise",
                    advice=f"call it, `{call}({wrapped})()`, or write `with {call}:` around `{wrapped}()`",
                )

    def _guard(self, value: cst.BaseExpression) -> Optional[Guard]:
        """The guard ``value`` calls, if it is one of those that only act when entered."""
        guard = self.ctx.semantic.gradmode.guard(value)
        return guard if guard is not None and guard.called and guard.kind in _FORMS else None

    def _report(self, value: cst.BaseExpression, guard: Guard) -> None:
        call = self.ctx.code_for(value)
        self.report(
            value,
            problem=f"`{call}` on its own creates a context manager and throws it away",
            effect=_FORMS[guard.kind],
            advice=f"use `with {call}:` around the code or decorate the function with `@{call}`",
        )
