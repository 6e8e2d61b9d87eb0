"""GL103 backward-under-no-grad: backward through a value computed with gradients off."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.rule import Rule
from gradlint.rules._gates import DISABLING_GUARDS
from gradlint.semantic import bounds
from gradlint.semantic.calls import BACKWARD_METHODS
from gradlint.semantic.gradmode import GuardSite
from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.tree import walk

# Calls that may hand back a tensor computed elsewhere, graph and all.
_RETURNS_EXISTING = frozenset(
    "get pop popleft popitem getattr next min max item tolist numpy detach requires_grad_ setdefault "
    "__getitem__ copy deepcopy".split()
)


class BackwardUnderNoGrad(Rule):
    code = "GL103"
    triggers = ("backward", "autograd")
    gates = (re.compile(DISABLING_GUARDS),)  # what switched gradients off is named somewhere

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # torch.autograd.grad/backward can only be named in a file that spells "autograd".
        self._autograd = "autograd" in ctx.source

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (self._autograd or (isinstance(func, cst.Attribute) and func.attr.value in BACKWARD_METHODS)):
            return  # cheap: most calls are no backward
        backward = self.ctx.semantic.calls.backward_call(node)
        if backward is None or backward.tensor is None:
            return
        if self.ctx.semantic.calls.error_expected(node):
            return  # a test that checks autograd's error on purpose
        target: cst.BaseExpression = backward.tensor
        action = backward.spelling
        site = self._computed_without_grad(target, node)
        if site is None:
            return
        self.report(
            node,
            target=f"`{target.value}`" if isinstance(target, cst.Name) else "this value",
            guard=self.ctx.code_for(site.expr),
            line=self.ctx.position(site.node).start.line,
            action=action,
        )

    def _computed_without_grad(self, target: cst.BaseExpression, use: cst.CSTNode, depth: int = 0) -> Optional[GuardSite]:
        """Where gradients were switched off for the computation of ``target``, if they were."""
        sem = self.ctx.semantic
        if _computes(target):
            return None if self._enables_grad(target) else _disabling(sem.gradmode.guard_at(use))
        if depth < bounds.NAME_STEPS and isinstance(target, (cst.Attribute, cst.Subscript)) and isinstance(target.value, cst.Name):
            # ``loss = outputs.loss``: a part of something computed without gradients
            return self._computed_without_grad(target.value, use, depth + 1)
        if not isinstance(target, cst.Name):
            return None
        # Every binding that may reach the use must have been computed without gradients.
        reaching = sem.scopes.reaching(target)
        if reaching.unbound or not reaching.bindings:
            return None
        site = None
        for b in reaching.bindings:
            if b.kind != "assign" or b.value is None or b.node is None:
                return None
            found = self._computed_without_grad(b.value, b.node, depth + 1) if depth < bounds.NAME_STEPS else None
            if found is None:
                return None
            site = site or found
        if self._regains_grad(sem.tree.function_scope(use), target.value):
            return None
        return site

    def _enables_grad(self, value: cst.BaseExpression) -> bool:
        """A call of a function of this module decorated ``@torch.enable_grad()``."""
        if not isinstance(value, cst.Call):
            return False
        sem = self.ctx.semantic
        func = sem.calls.local_function(value)
        if func is None:
            return False
        guard = sem.gradmode.decorator_guard(func)
        return guard is not None and guard.disables is not True

    def _regains_grad(self, scope, name: str) -> bool:
        """``loss.requires_grad_()`` / ``loss.requires_grad = True`` somewhere in the scope."""
        body = scope if isinstance(scope, cst.Module) else scope.body
        for node in walk(body):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "requires_grad_":
                if isinstance(node.func.value, cst.Name) and node.func.value.value == name:
                    return True
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    tgt = t.target
                    if isinstance(tgt, cst.Attribute) and tgt.attr.value == "requires_grad":
                        if isinstance(tgt.value, cst.Name) and tgt.value.value == name:
                            return True
        return False


def _disabling(site: Optional[GuardSite]) -> Optional[GuardSite]:
    return site if site is not None and site.guard.disables is True else None


def _computes(expr: cst.BaseExpression) -> bool:
    """An operation that makes a new tensor (so under no_grad, one without ``grad_fn``)."""
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(expr, (cst.Subscript, cst.Attribute)):  # ``model(x)[0, label]``, ``model(**batch).loss``
        return _computes(expr.value)
    if isinstance(expr, cst.Call):
        name = expr.func.attr.value if isinstance(expr.func, cst.Attribute) else (
            expr.func.value if isinstance(expr.func, cst.Name) else None
        )
        if name is None or name in _RETURNS_EXISTING:
            return False
        flag = call_arg(expr, None, "requires_grad")
        return flag is None or bool_value(flag.value) is False
    return False
