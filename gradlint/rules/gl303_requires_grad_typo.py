"""GL303 requires-grad-typo: ``x.require_grad = False`` sets an unused attribute."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._freezing import requires_grad_call, single_assignment
from gradlint.rules._inplace import short


class RequiresGradTypo(Rule):
    code = "GL303"
    triggers = (".require_grad",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._read_somewhere: Optional[bool] = None

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            target = t.target
            if isinstance(target, cst.Attribute) and target.attr.value == "require_grad":
                self._check(node, target)

    def _check(self, node: cst.Assign, target: cst.Attribute) -> None:
        if self._attribute_is_read():
            return  # a class's own ``require_grad`` attribute, used consistently: not a typo
        receiver = short(self.ctx, target.value, 30) or "x"
        value = short(self.ctx, node.value, 30) or "..."
        single = single_assignment(node) is target
        if self.ctx.semantic.modules.is_module(target.value):
            advice = (
                f"; `{receiver}` is an `nn.Module`: call `{receiver}.requires_grad_({value})` "
                "(`.requires_grad = ...` would not freeze its parameters either)"
            )
            fix = (
                self.fix(
                    self.replace(node, requires_grad_call(target, node.value)),
                    title=f"Call `{receiver}.requires_grad_({value})`",
                )
                if single
                else None
            )
        else:
            advice = f"; assign `{receiver}.requires_grad`"
            fix = self.fix(
                self.replace(target.attr, cst.Name("requires_grad")),
                title="Rename the attribute to `requires_grad`",
            )
        self.report(target, fix=fix, receiver=receiver, advice=advice)

    def _attribute_is_read(self) -> bool:
        """Whether the file reads ``require_grad`` by name anywhere (``x.require_grad``,
        ``getattr(x, "require_grad")``, ``hasattr``...): the code's own attribute.
        ``vars(args)`` and the like read every attribute and are no such evidence."""
        if self._read_somewhere is None:
            self._read_somewhere = bool(self.ctx.semantic.attributes.reads("require_grad", named_only=True))
        return self._read_somewhere
