"""Helpers shared by the in-place edit rules (GL201, GL202, GL203)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.rule import Rule
from gradlint.semantic.syntax import inplace_edit, is_inplace_method
from gradlint.semantic.values import StorageAlias

SHORT = 40


def short(ctx, node: cst.CSTNode, limit: int = SHORT) -> Optional[str]:
    """The source of ``node`` when it fits on one short line, else None."""
    text = ctx.code_for(node).strip()
    return text if len(text) <= limit and "\n" not in text else None


def edit_text(ctx, node: cst.CSTNode) -> str:
    """How a message names an in-place edit: ``y.add_(1)``, ``y += 1``, ``y[0] = ...``."""
    whole = short(ctx, node)
    if whole is not None:
        return whole
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        receiver = short(ctx, node.func.value) or "..."
        return f"{receiver}.{node.func.attr.value}(...)"
    if isinstance(node, cst.AugAssign):
        target = short(ctx, node.target) or "..."
        return f"{target} {ctx.code_for(node.operator).strip()} ..."
    if isinstance(node, cst.Assign):
        target = short(ctx, node.targets[0].target) or "..."
        return f"{target} = ..."
    return "this edit"


def chained_receiver(receiver: cst.BaseExpression) -> bool:
    """Whether ``receiver`` is itself an in-place call (``x.data.mul_(d).add_(...)``):
    the edit is reported once, at the innermost call."""
    return (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Attribute)
        and is_inplace_method(receiver.func.attr.value)
    )


def edited_alias(sem, node: cst.CSTNode, kind: str) -> Optional[StorageAlias]:
    """The ``kind`` ("detach"/"data") alias that the in-place edit ``node`` overwrites, if any."""
    receiver = inplace_edit(node)
    if receiver is None or chained_receiver(receiver):
        return None
    alias = sem.values.storage_alias(receiver)
    return alias if alias is not None and alias.kind == kind else None


class InplaceEditRule(Rule):
    """A rule about in-place edits: ``check_edit`` sees every call, augmented assignment
    and assignment, the three statements that can overwrite a tensor's elements."""

    def visit_Call(self, node: cst.Call) -> None:
        self.check_edit(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.check_edit(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.check_edit(node)

    def check_edit(self, node: cst.CSTNode) -> None:
        raise NotImplementedError
