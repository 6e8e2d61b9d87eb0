"""GL002 variable-wrapper: ``Variable(x)`` silently detaches ``x`` on today's torch."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint import codegen
from gradlint.fixes import Fix
from gradlint.rule import Rule
from gradlint.rules._legacy import self_assignment
from gradlint.semantic.syntax import bool_value, call_arg, is_inplace_method
from gradlint.semantic.tree import walk
from gradlint.semantic.versions import runs_only_before
from gradlint.semantic.torch_api import TORCH_04, CONVERSIONS, REQUIRES_GRAD_FACTORIES, TENSOR_FACTORIES, VARIABLE

_SHORT = 24
# Members whose use depends on which object holds the tensor, not on its values.
_IDENTITY_ATTRS = frozenset({"requires_grad", "requires_grad_", "grad", "register_hook", "retain_grad", "grad_fn"})


class VariableWrapper(Rule):
    code = "GL002"
    triggers = ("Variable",)

    def visit_Call(self, node: cst.Call) -> None:
        sem = self.ctx.semantic
        if not sem.names.is_call_to(node, VARIABLE) or runs_only_before(sem, node, TORCH_04):
            return
        if call_arg(node, 2, "volatile") is not None:
            return  # GL001's finding
        data = call_arg(node, 0, "data")
        requires_grad = call_arg(node, 1, "requires_grad")
        known = {id(a) for a in (data, requires_grad) if a is not None}
        if data is None or any(id(a) not in known for a in node.args):
            self.report(node, equivalent="a detached alias of its argument (`.detach()`)")
            return
        flag: Optional[bool] = False if requires_grad is None else bool_value(requires_grad.value)
        x = self.ctx.code_for(data.value)
        short = len(x) <= _SHORT and "\n" not in x
        if flag is False:
            form = ".detach()"
        elif flag is True:
            form = ".detach().requires_grad_()"
        else:
            form = ".detach().requires_grad_(...)"
        equivalent = f"`{x}{form}`" if short else f"its argument's `{form}`"
        self.report(node, fix=self._fix(node, data.value, requires_grad, flag), equivalent=equivalent)

    def _fix(self, node: cst.Call, value: cst.BaseExpression, requires_grad: Optional[cst.Arg], flag: Optional[bool]) -> Fix:
        sem = self.ctx.semantic
        free = sem.values.carries_no_graph(value, sem.tree.function_scope(node))
        # Dropping the wrapper keeps behaviour only for a tensor made right there (a factory
        # call): a name judged graph-free by how it looks (a loader's batch) may hold a model
        # output, a parameter seen through `as_tensor`, or a leaf that requires grad, and then
        # gradients start flowing where `Variable` cut them. `.detach()` is what it does today.
        fresh = self._is_fresh(value)
        safety = "safe" if fresh else "unsafe"
        if flag is False and free and not fresh and self._identity_matters(node):
            # `x = Variable(batch)` then `x.requires_grad = True` (or an in-place edit, a
            # hook): without the wrapper these land on the loader's own tensor, which then
            # keeps a `.grad` across epochs. `.detach()` is the new object `Variable` made,
            # sharing storage as it did (in 0.3 too).
            free = False
        if flag is False:
            stmt = self_assignment(self.ctx, node, allow_volatile=False) if free else None
            if stmt is not None:
                return self.fix(
                    self.replace(stmt, cst.RemovalSentinel.REMOVE, key=("self-assignment", id(stmt))),
                    title="Remove the assignment: without `Variable` it assigns the names to themselves",
                    applicability="unsafe",
                    remove_imports=sem.names.imports_of(VARIABLE),
                )
            new, title = (value, "Remove the `Variable` wrapper") if free else (
                codegen.method_call(value, "detach"),
                "Replace with the `.detach()` it performs",
            )
            if not free:
                safety = "safe"
        elif flag is True and free and self._is_factory(value):
            assert isinstance(value, cst.Call)
            new = codegen.add_keyword(value, "requires_grad", cst.Name("True"))
            title = "Pass `requires_grad=True` to the tensor factory"
            safety = "safe"
        else:
            # `base.requires_grad_()` would turn `base` itself into the leaf: two wrappers of
            # one base would become one leaf whose gradients add up, and `base` would gain a
            # `.grad`. Only a tensor made right there may become the leaf; anything else gets
            # the new leaf `Variable` makes, `.detach().requires_grad_()`.
            args = [] if flag is True else [cst.Arg(requires_grad.value)]  # type: ignore[union-attr]
            base = value if fresh else codegen.method_call(value, "detach")
            new = codegen.method_call(base, "requires_grad_", args)
            title = "Replace with `.requires_grad_()`" if fresh else "Replace with the `.detach().requires_grad_()` it performs"
            safety = "safe"
        return self.fix(
            self.replace(node, codegen.keep_parens(node, codegen.atomic(new))),
            applicability=safety,
            title=title,
            remove_imports=sem.names.imports_of(VARIABLE),
        )

    def _identity_matters(self, node: cst.Call) -> bool:
        """Whether the object ``node`` makes is used as an object of its own: bound to a
        name whose flag, gradient or hooks are set or read, that is edited in place,
        given attributes, or handed where that may happen (stored, returned, passed to a
        function of the file or one not known). Only a name used for reading its values
        (a forward, arithmetic, printing) is not."""
        parent = self.ctx.parent(node)
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
            return False  # ``model(Variable(x))``: a value read where it is made
        name = parent.targets[0].target.value
        scope = self.ctx.semantic.tree.function_scope(node)
        for ref in walk(scope, into_functions=True):
            if not (isinstance(ref, cst.Name) and ref.value == name) or ref is parent.targets[0].target:
                continue
            holder = self.ctx.parent(ref)
            if isinstance(holder, cst.Attribute) and holder.value is ref:
                attr = holder.attr.value
                outer = self.ctx.parent(holder)
                if isinstance(outer, cst.AssignTarget) or attr in _IDENTITY_ATTRS or is_inplace_method(attr):
                    return True
            elif isinstance(holder, (cst.AugAssign,)) and holder.target is ref:
                return True  # ``x += noise`` edits the tensor in place
            elif isinstance(holder, cst.Subscript) and holder.value is ref:
                outer = self.ctx.parent(holder)
                if isinstance(outer, (cst.AssignTarget, cst.AugAssign)):
                    return True  # ``x[mask] = 0``
        return False

    def _is_fresh(self, value: cst.BaseExpression) -> bool:
        """A tensor made right there by a factory (``torch.zeros(3)``, ``torch.from_numpy(a)``),
        maybe converted (``.cuda()``): a new object with no history. ``torch.as_tensor(t)``
        returns ``t`` itself, so it does not count."""
        while (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in CONVERSIONS
            and not self.ctx.semantic.names.refers_to(value.func, TENSOR_FACTORIES)
        ):
            value = value.func.value
        return (
            isinstance(value, cst.Call)
            and self.ctx.semantic.names.refers_to(value.func, TENSOR_FACTORIES - {"torch.as_tensor"})
        )

    def _is_factory(self, value: cst.BaseExpression) -> bool:
        return (
            isinstance(value, cst.Call)
            and self.ctx.semantic.names.refers_to(value.func, REQUIRES_GRAD_FACTORIES)
            and call_arg(value, None, "requires_grad") is None
            and not any(a.star for a in value.args)
        )
