"""Whether a module's forward needs gradients itself.

A neural implicit surface computes its normals in ``forward`` with
``torch.autograd.grad`` of the signed distance (``x.requires_grad_(True)``, then
``autograd.grad(sdf, x)``); a physics model differentiates its energy to get
forces. Such a forward must run with grad on, whoever calls it: a forward of it
in eval mode without ``no_grad`` is no mistake, and wrapping it in ``no_grad``
makes ``autograd.grad`` raise. The premise is proven only for a class the file
defines: its ``forward``, or a method it calls on ``self`` or on a submodule
whose class the file defines too (bounded), calls ``torch.autograd.grad``,
``.backward()`` or ``.requires_grad_()`` / ``.requires_grad_(True)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Set, Tuple

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

# Functions that differentiate inside; ``torch.autograd.grad`` is a backward call.
_JACOBIANS = frozenset({"torch.autograd.functional.jacobian", "torch.autograd.functional.hessian"})


def forward_needs_grad(sem: "SemanticModel", module: cst.BaseExpression) -> bool:
    """Whether the forward of ``module`` (``model`` in ``model(x)``), an instance of a
    class of this file, computes gradients itself."""
    cls = sem.modules.instance_class(module)
    return cls is not None and _method_needs_grad(sem, cls, "forward", 0, set())


def _method(cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


def _method_needs_grad(sem: "SemanticModel", cls: cst.ClassDef, name: str, depth: int, seen: Set[Tuple[int, str]]) -> bool:
    key = (id(cls), name)
    if key in seen or depth > bounds.CALL_LEVELS:
        return False
    seen.add(key)
    method = _method(cls, name)
    if method is None:
        return False  # inherited or dynamic: not seen, so not proven
    for node in walk(method.body):
        if not isinstance(node, cst.Call):
            continue
        if _computes_gradients(sem, node):
            return True
        func = node.func
        if isinstance(func, cst.Name) and func.value == "self":
            target: Optional[Tuple[cst.ClassDef, str]] = (cls, "forward")
        elif isinstance(func, cst.Attribute) and _is_self(func.value):
            target = (cls, func.attr.value)
            sub = sem.modules.instance_class(func) if func.attr.value != "forward" else None
            if sub is not None and _method_needs_grad(sem, sub, "forward", depth + 1, seen):
                return True  # ``self.sdf(x)``: the submodule's forward
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) and _is_self(func.value.value):
            sub = sem.modules.instance_class(func.value)
            target = (sub, func.attr.value) if sub is not None else None  # ``self.sdf.gradient(x)``
        else:
            target = None
        if target is not None and _method_needs_grad(sem, target[0], target[1], depth + 1, seen):
            return True
    return False


def _is_self(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "self"


def _computes_gradients(sem: "SemanticModel", call: cst.Call) -> bool:
    if sem.calls.is_backward_call(call):  # ``.backward()``, ``torch.autograd.grad``, a framework's backward
        return True
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
        return not call.args or isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "True"
    if isinstance(func, (cst.Name, cst.Attribute)):
        return bool(sem.names.qualnames(func) & _JACOBIANS)
    return False


__all__ = ["forward_needs_grad"]
