"""GL302 module-requires-grad-attribute: ``model.requires_grad = False`` freezes nothing."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._freezing import before_base_init, requires_grad_call, single_assignment
from gradlint.rules._inplace import short
from gradlint.semantic.syntax import bool_value


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
            if _is_self(target.value) and not self._self_flag_unread(node):
                continue  # ``self.requires_grad = requires_grad``: a setting the class reads back
            module = short(self.ctx, target.value, 30) or "module"
            value = short(self.ctx, node.value, 30) or "..."
            fix = None
            if single_assignment(node) is target and not before_base_init(node, target.value, sem.tree):
                fix = self.fix(
                    self.replace(node, requires_grad_call(target, node.value)),
                    applicability=self._safety(target, node.value),
                    module=module,
                    value=value,
                )
            self.report(target, fix=fix, module=module, value=value)

    def _self_flag_unread(self, node: cst.Assign) -> bool:
        """``self.requires_grad = False`` in a module class that never reads the flag
        back: a literal ``True``/``False`` that no code of the class (nor a dynamic
        ``getattr``/``vars`` anywhere in the file) reads. A class that stores a
        constructor's ``requires_grad`` and reads it when it builds its parameters
        (ELMo's ``requires_grad=self.requires_grad``) keeps a setting, not a freeze."""
        sem = self.ctx.semantic
        if bool_value(node.value) is None:
            return False
        cls = sem.tree.enclosing_class(node)
        for read in sem.attributes.reads("requires_grad"):
            if read.receiver is None or (_is_self(read.receiver) and sem.tree.enclosing_class(read.node) is cls):
                return False
        return True

    def _safety(self, target: cst.Attribute, value: cst.BaseExpression) -> str:
        """Safe only for ``= True`` on a module whose parameters are proven to require
        grad already (``Attributes.unfreezes_nothing``: built by a library factory,
        nothing in the file sets ``requires_grad`` to another value, the module object
        goes nowhere a callee could freeze or read it), and only where nothing reads
        the module's ``requires_grad`` attribute back by any route
        (``Attributes.reads``: the call does not set it, so a later read would raise
        ``AttributeError`` or see another value). ``= False`` really freezes the
        parameters: the intended effect, but gradients change, so it is unsafe; any
        other value may be no bool (``None`` raises)."""
        if not (isinstance(value, cst.Name) and value.value == "True"):
            return "unsafe"
        attributes = self.ctx.semantic.attributes
        if not attributes.unfreezes_nothing(target.value):
            return "unsafe"
        if self._read_back is None:
            modules = self.ctx.semantic.modules
            # A class of the file reading its own flag (``getattr(self, ...)``) reads
            # its instances', never a module a library factory built (which a safe
            # fix needs, above).
            self._read_back = any(
                read.receiver is None or (not _is_self(read.receiver) and modules.is_module(read.receiver))
                for read in attributes.reads("requires_grad")
            )
        return "unsafe" if self._read_back else "safe"


def _is_self(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "self"
