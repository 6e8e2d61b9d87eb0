"""Helpers shared by the freezing rules (GL302, GL303)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint import codegen


def requires_grad_call(target: cst.Attribute, value: cst.BaseExpression) -> cst.Expr:
    """``module.requires_grad_(value)``: the statement that really (un)freezes ``module``."""
    return cst.Expr(codegen.method_call(target.value, "requires_grad_", [cst.Arg(value)]))


def single_assignment(assign: cst.Assign) -> Optional[cst.Attribute]:
    """The target of ``x.attr = value`` when it is the only one (``a.b = c.d = v`` is not fixed)."""
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    return target if isinstance(target, cst.Attribute) else None
