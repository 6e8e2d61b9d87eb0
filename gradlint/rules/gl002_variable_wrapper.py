"""GL002 variable-wrapper: ``Variable(x)`` silently detaches ``x`` on today's torch."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint import codegen
from gradlint.fixes import Fix
from gradlint.rule import Rule
from gradlint.rules._legacy import self_assignment
from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.torch_api import REQUIRES_GRAD_FACTORIES, VARIABLE

_SHORT = 24


class VariableWrapper(Rule):
    code = "GL002"
    triggers = ("Variable",)

    def visit_Call(self, node: cst.Call) -> None:
        sem = self.ctx.semantic
        if not sem.names.is_call_to(node, VARIABLE):
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
        self.report(node, fix=self._fix(node, data.value, requires_grad, flag), equivalent=equivalent)

    def _fix(self, node: cst.Call, value: cst.BaseExpression, requires_grad: Optional[cst.Arg], flag: Optional[bool]) -> Fix:
        sem = self.ctx.semantic
        free = sem.values.carries_no_graph(value, sem.tree.function_scope(node))
        if flag is False:
            stmt = self_assignment(self.ctx, node, allow_volatile=False) if free else None
            if stmt is not None:
                return self.fix(
                    self.replace(stmt, cst.RemovalSentinel.REMOVE, key=("self-assignment", id(stmt))),
                    title="Remove the assignment: without `Variable` it assigns the names to themselves",
                    remove_imports=sem.names.imports_of(VARIABLE),
                )
            new, title = (value, "Remove the `Variable` wrapper") if free else (
                codegen.method_call(value, "detach"),
                "Replace with the `.detach()` it performs",
            )
        elif flag is True and free and self._is_factory(value):
            assert isinstance(value, cst.Call)
            new = codegen.add_keyword(value, "requires_grad", cst.Name("True"))
            title = "Pass `requires_grad=True` to the tensor factory"
        else:
            args = [] if flag is True else [cst.Arg(requires_grad.value)]  # type: ignore[union-attr]
            base = value if free else codegen.method_call(value, "detach")
            new = codegen.method_call(base, "requires_grad_", args)
            title = "Replace with `.requires_grad_()`" if free else "Replace with the `.detach().requires_grad_()` it performs"
        return self.fix(
            self.replace(node, codegen.keep_parens(node, codegen.atomic(new))),
            title=title,
            remove_imports=sem.names.imports_of(VARIABLE),
        )

    def _is_factory(self, value: cst.BaseExpression) -> bool:
        return (
            isinstance(value, cst.Call)
            and self.ctx.semantic.names.refers_to(value.func, REQUIRES_GRAD_FACTORIES)
            and call_arg(value, None, "requires_grad") is None
            and not any(a.star for a in value.args)
        )
