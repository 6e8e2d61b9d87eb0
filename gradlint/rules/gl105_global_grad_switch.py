"""GL105 global-grad-switch: a bare ``torch.set_grad_enabled(False)`` in a function
switches autograd off for the rest of the thread, not for the function."""

from __future__ import annotations

from typing import Union, cast

import libcst as cst

from gradlint.rule import Rule
from gradlint.semantic.tree import walk

# A program's entry point may switch gradients off for the whole run: that is
# what the statement does, so it is not a leak there. A script's function that
# its ``__main__`` block calls last is an entry point too (``semantic.calls``).
_ENTRY_POINTS = frozenset({"main", "__main__"})


class GlobalGradSwitch(Rule):
    code = "GL105"
    triggers = ("set_grad_enabled",)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        sem = self.ctx.semantic
        switch = sem.gradmode.global_switch(node)
        if switch is None or switch.disables is not True:
            return
        func = sem.tree.enclosing_function(node)
        if func is None or func.name.value in _ENTRY_POINTS or sem.calls.is_script_entry(func):
            return
        if self._switched_back(func, node):
            return
        small = node.body[0]
        if isinstance(small, cst.Assign) and self._used_later(func, small):
            return  # ``ctx = set_grad_enabled(False)`` ... ``with ctx:`` restores the mode on exit
        # ``global_switch`` found the call as this statement's value (an ``Expr`` or ``Assign``).
        call = cast(Union[cst.Expr, cst.Assign], small).value
        self.report(call, call=self.ctx.code_for(call), func=func.name.value)

    def _used_later(self, func: cst.FunctionDef, assign: cst.Assign) -> bool:
        names = {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
        targets = {id(t.target) for t in assign.targets}
        return any(
            isinstance(n, cst.Name) and n.value in names and id(n) not in targets for n in walk(func.body)
        )

    def _switched_back(self, func: cst.FunctionDef, switch: cst.SimpleStatementLine) -> bool:
        """A later ``torch.set_grad_enabled(True)`` / ``(prev)`` statement in the function:
        the author restores the mode (hopefully in a ``finally``)."""
        sem = self.ctx.semantic
        seen = False
        for node in walk(func.body):
            if node is switch:
                seen = True
            elif seen and isinstance(node, cst.SimpleStatementLine):
                g = sem.gradmode.global_switch(node)
                if g is not None and g.disables is not True:
                    return True
        return False
