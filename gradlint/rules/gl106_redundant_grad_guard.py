"""GL106 redundant-grad-guard: a ``no_grad``/``inference_mode`` guard inside another
that already disables gradients."""

from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence, cast

import libcst as cst

from gradlint.fixes import Fix
from gradlint.rule import AnyOf, Rule
from gradlint.rules._gates import DISABLING_GUARDS
from gradlint.rules._safety import call_may_enable_grad
from gradlint.semantic.gradmode import Guard
from gradlint.semantic.syntax import is_generator, last_name
from gradlint.semantic.tree import walk


class RedundantGradGuard(Rule):
    code = "GL106"
    triggers = ("no_grad", "inference_mode", "set_grad_enabled")
    # two guards, so two names of guards; or one imported under another name
    gates = (AnyOf(re.compile(r"(?s){g}.*?{g}".format(g=DISABLING_GUARDS)), re.compile(r"{g}\s+as\b".format(g=DISABLING_GUARDS))),)

    def visit_With(self, node: cst.With) -> None:
        sem = self.ctx.semantic
        found = [(item, sem.gradmode.guard(item.item)) for item in node.items]
        guards = [(item, g) for item, g in found if g is not None and (g.called or g.kind == "set_grad_enabled")]
        if len(guards) != 1:
            return  # ``with torch.no_grad(), torch.enable_grad():`` says something else
        item, inner = guards[0]
        if inner.disables is not True:
            return
        outer = sem.gradmode.guard_at(node)
        if outer is None or not _covers(outer.guard, inner):
            return
        self.report(
            item.item,
            fix=self._fix(node, item, self._outer_proven(node, outer.node)),
            inner=self.ctx.code_for(item.item),
            outer=self.ctx.code_for(outer.expr),
            line=self.ctx.position(outer.node).start.line,
        )

    def _outer_proven(self, inner: cst.With, outer: cst.CSTNode) -> str:
        """"safe" when the outer guard is surely in effect at the inner one. A decorator on an
        ``async def`` or a generator does not cover what runs after a suspension (the
        coroutine body runs when awaited, outside the decorator's call); anything that may
        switch grad mode back on between the two (``set_grad_enabled(True)`` in an ``if``,
        ``enable_grad``) leaves the inner guard as the only one in effect."""
        if isinstance(outer, cst.Decorator):
            func = self.ctx.parent(outer)
            if not isinstance(func, cst.FunctionDef) or func.asynchronous is not None:
                return "unsafe"
            if is_generator(func):
                return "unsafe"
            between: Sequence[cst.CSTNode] = [func.body]
        elif isinstance(outer, cst.With):
            between = [outer.body]
            # a generator suspended inside the guard resumes in its consumer's grad mode
            func = self.ctx.semantic.tree.enclosing_function(inner)
            if func is not None and is_generator(func) and any(isinstance(n, (cst.Yield, cst.Await)) for n in walk(outer.body)):
                return "unsafe"
        else:
            # a global switch (``torch.set_grad_enabled(False)`` as a statement): only the
            # statements after it in the same block, up to the one holding the guard
            block = self.ctx.parent(outer)
            body = list(getattr(block, "body", ()))
            holder: Optional[cst.CSTNode] = inner
            while holder is not None and self.ctx.parent(holder) is not block:
                holder = self.ctx.parent(holder)
            if holder is None or outer not in body or holder not in body:
                return "unsafe"
            between = body[body.index(outer) + 1 : body.index(holder) + 1]
        for stmt in between:
            for n in walk(stmt):
                if n is inner:
                    return "safe"
                if isinstance(n, (cst.Name, cst.Attribute)) and last_name(n) in ("set_grad_enabled", "enable_grad", "_set_grad_enabled"):
                    return "unsafe"
                if isinstance(n, cst.Call) and call_may_enable_grad(self.ctx, n):
                    return "unsafe"  # a helper or forward of the file that switches grad on
        return "safe"

    def _fix(self, node: cst.With, item: cst.WithItem, safety: str) -> Optional[Fix]:
        if item.asname is not None:
            return None  # the name it binds may be used
        if len(node.items) > 1:
            return self.fix(self.transform(node, lambda w: _without_item(w, node.items.index(item))), applicability=safety)
        body = node.body
        if isinstance(body, cst.IndentedBlock) and any(line.comment for line in body.footer):
            return None  # comments after the last statement would have nowhere to go
        return self.fix(self.transform(node, _unwrap), applicability=safety)


def _covers(outer: Guard, inner: Guard) -> bool:
    """Whether ``inner`` changes nothing inside ``outer``. An inner inference_mode
    under no_grad is not redundant: it makes inference tensors."""
    if outer.disables is not True:
        return False
    if inner.kind == "inference_mode":
        return outer.kind == "inference_mode"
    return True


def _without_item(node: cst.With, index: int) -> cst.With:
    items = list(node.items)
    del items[index]
    if index == len(items):  # removed the last one: the new last has no comma
        items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return node.with_changes(items=items)


def _unwrap(node: cst.With) -> cst.FlattenSentinel:
    """The statements of the ``with`` body, in its place, keeping its comments."""
    body = node.body
    header_comment = body.header.comment if isinstance(body, cst.IndentedBlock) else None
    lead: List[cst.EmptyLine] = list(node.leading_lines)
    if header_comment is not None:
        lead.append(cst.EmptyLine(comment=header_comment))
    if isinstance(body, cst.SimpleStatementSuite):
        return cst.FlattenSentinel(
            [cst.SimpleStatementLine(body=body.body, leading_lines=lead, trailing_whitespace=body.trailing_whitespace)]
        )
    stmts: List[Any] = list(cast(cst.IndentedBlock, body).body)  # every statement has leading_lines
    stmts[0] = stmts[0].with_changes(leading_lines=[*lead, *stmts[0].leading_lines])
    return cst.FlattenSentinel(stmts)
