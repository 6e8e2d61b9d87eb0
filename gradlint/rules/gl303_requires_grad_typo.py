"""GL303 requires-grad-typo: ``x.require_grad = False`` (or ``x.requires_grad_ = False``)
sets an unused attribute."""

from __future__ import annotations

from typing import Dict

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._freezing import requires_grad_call, single_assignment
from gradlint.rules._inplace import short


class RequiresGradTypo(Rule):
    code = "GL303"
    triggers = (".require_grad", ".requires_grad_")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._read_somewhere: Dict[str, bool] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            target = t.target
            if isinstance(target, cst.Attribute) and target.attr.value in _TYPOS:
                self._check(node, target)

    def _check(self, node: cst.Assign, target: cst.Attribute) -> None:
        attr = target.attr.value
        if self._attribute_is_read(attr):
            return  # a class's own attribute of that name, used consistently: not a typo
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
        self.report(target, fix=fix, receiver=receiver, attribute=attr, advice=advice)

    def _attribute_is_read(self, attr: str) -> bool:
        """Whether the file reads ``attr`` by name anywhere (``x.require_grad``,
        ``getattr(x, "require_grad")``, ``hasattr``...): the code's own attribute.
        ``vars(args)`` and the like read every attribute and are no such evidence,
        nor is a call of the method ``requires_grad_(...)``."""
        if attr not in self._read_somewhere:
            reads = self.ctx.semantic.attributes.reads(attr, named_only=True)
            self._read_somewhere[attr] = any(not self._called(r.node) for r in reads)
        return self._read_somewhere[attr]

    def _called(self, node: cst.CSTNode) -> bool:
        parent = self.ctx.parent(node)
        return isinstance(parent, cst.Call) and parent.func is node


# ``require_grad``: a letter short. ``requires_grad_``: the in-place method's name, which
# the assignment hides on that object (``x.requires_grad_()`` then raises ``TypeError``).
_TYPOS = frozenset({"require_grad", "requires_grad_"})
