"""Helpers shared by the freezing rules (GL302, GL303)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint import codegen
from gradlint.semantic.tree import walk


def requires_grad_call(target: cst.Attribute, value: cst.BaseExpression) -> cst.Expr:
    """``module.requires_grad_(value)``: the statement that really (un)freezes ``module``."""
    return cst.Expr(codegen.method_call(target.value, "requires_grad_", [cst.Arg(value)]))


def single_assignment(assign: cst.Assign) -> Optional[cst.Attribute]:
    """The target of ``x.attr = value`` when it is the only one (``a.b = c.d = v`` is not fixed)."""
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    return target if isinstance(target, cst.Attribute) else None


def before_base_init(assign: cst.CSTNode, receiver: cst.BaseExpression, tree) -> bool:
    """``self.requires_grad = ...`` in an ``__init__`` with no base ``__init__`` call
    (``super().__init__(...)``, ``Base.__init__(self, ...)``) in a statement of the
    method's body before it: ``self.requires_grad_(...)`` there would ask for
    parameters that ``nn.Module.__init__`` has not set up yet and raise
    ``AttributeError``."""
    if not (isinstance(receiver, cst.Name) and receiver.value == "self"):
        return False
    func = tree.enclosing(assign, (cst.FunctionDef,))
    if not isinstance(func, cst.FunctionDef) or func.name.value != "__init__" or not isinstance(func.body, cst.IndentedBlock):
        return False
    for stmt in func.body.body:
        if any(n is assign for n in walk(stmt)):
            return True
        if any(
            isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "__init__"
            for n in walk(stmt)
        ):
            return False
    return True
