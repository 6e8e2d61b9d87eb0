"""GL001 volatile-flag: ``Variable(x, volatile=True)`` is ignored; the graph is built."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Tuple

import libcst as cst

from gradlint import codegen
from gradlint.fixes import Fix, ImportSpec
from gradlint.rule import Rule
from gradlint.rules._legacy import self_assignment, unwrap_fix
from gradlint.semantic.derivation import not_derived_leaving, not_derived_training, volatile_inputs
from gradlint.rules._safety import (
    function_values_escape,
    grad_guard,
    guard_changes_more_than_graph,
    in_async_function,
)
from gradlint.semantic.syntax import bool_value, call_arg, is_generator
from gradlint.semantic.tree import walk
from gradlint.semantic.versions import runs_only_before
from gradlint.semantic.torch_api import TORCH_04, VARIABLE

# The fix of a flag that is the module's own eval mode (``Fix.kind``): ``gradlint
# migrate`` counts such fixes, and names what their code now asks of a human.
EVAL_MODE_FIX_KIND = "eval-mode-flag"
EVAL_MODE_FIX_TITLE = (
    "Remove the `Variable` wrapper and its eval-mode `volatile=` flag (no effect since PyTorch 0.4); "
    "run evaluation under `torch.no_grad()`: GL101 reports evaluation without it"
)


class VolatileFlag(Rule):
    code = "GL001"
    triggers = ("volatile", "Variable")

    def visit_Call(self, node: cst.Call) -> None:
        sem = self.ctx.semantic
        subclass = False
        if not sem.names.is_call_to(node, VARIABLE):
            subclass = self._variable_subclass(node)
            if not subclass:
                self._passed_on(node)
                return
        if runs_only_before(sem, node, TORCH_04):
            return  # the 0.3 branch of a version check: there the flag still works
        volatile = call_arg(node, 2, "volatile")
        if volatile is None:
            return
        flag = bool_value(volatile.value)
        if flag is False:
            consequence = "; remove it"
        elif self._eval_mode_flag(volatile.value):
            # ``volatile=not self.training``: true exactly while the module is in eval mode.
            consequence = (
                ": it is true in eval mode, where this call still records an autograd graph; remove the flag "
                "and run the forward passes made after `.eval()` under `torch.no_grad()` "
                "(`gradlint check` reports those without it as GL101)"
            )
        elif flag is None:
            # ``volatile=not train``, ``volatile=evaluation``: the caller decides at run time.
            consequence = (
                ": where it is true this call still records an autograd graph; remove the flag and "
                "run the code that passes a true value under `torch.no_grad()`"
            )
        else:
            consequence = ": this call still records an autograd graph; use `torch.no_grad()`"
        if subclass:
            # No fix: the subclass's constructor may do more than wrap (move the
            # tensor to a device), so dropping the call could change the program.
            self.report(node, value=self.ctx.code_for(volatile.value), consequence=consequence)
            return
        self.report(node, fix=lambda: self._fix(node, volatile), value=self.ctx.code_for(volatile.value), consequence=consequence)

    def _variable_subclass(self, node: cst.Call) -> bool:
        """Whether ``node`` calls a class of the project that derives from
        ``torch.autograd.Variable``: its constructor takes the same ignored flag."""
        return call_arg(node, 2, "volatile") is not None and self.ctx.semantic.modules.names_subclass_of(node.func, VARIABLE)

    def _eval_mode_flag(self, value: cst.BaseExpression) -> bool:
        """``not m.training`` for an ``nn.Module`` ``m`` (``self`` in a module's method)."""
        if not (isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not)):
            return False
        inner = value.expression
        return (
            isinstance(inner, cst.Attribute)
            and inner.attr.value == "training"
            and (
                self.ctx.semantic.modules.is_module(inner.value)
                or self.ctx.semantic.modules.instance_class(inner.value) is not None
            )
        )

    def _no_op_flag_fix(self, node: cst.Call, volatile: cst.Arg) -> Fix:
        """``Variable(x, volatile=False)`` is ``Variable(x)``: the flag goes, and so does the
        wrapper where GL002's fix of ``Variable(x)`` is safe (what that fix gives, judged on
        this call), as the fix of a true flag removes it. Otherwise only the flag goes and
        the wrapper is left to GL002, whose fix then needs ``--unsafe-fixes`` or a human."""
        data = call_arg(node, 0, "data")
        requires_grad = call_arg(node, 1, "requires_grad")
        known = {id(a) for a in (data, requires_grad, volatile) if a is not None}
        if data is not None and all(id(a) in known for a in node.args):
            flag: Optional[bool] = False if requires_grad is None else bool_value(requires_grad.value)
            unwrapped = unwrap_fix(self, node, data.value, requires_grad, flag)
            if unwrapped.applicability == "safe":
                title = unwrapped.title.replace("Remove the `Variable` wrapper", "and the `Variable` wrapper", 1)
                if title == unwrapped.title:
                    title = f"; {title[0].lower()}{title[1:]}"
                return replace(unwrapped, title=f"Remove `volatile=False`{'' if title.startswith(';') else ' '}{title}")
        return self.fix(
            self.replace(node, codegen.without_arg(node, volatile)),
            title="Remove `volatile=False`",
            applicability="safe",
        )

    def _eval_mode_fix(self, node: cst.Call, data: Optional[cst.Arg]) -> Optional[Fix]:
        """``Variable(x, volatile=not self.training)``: ``x`` (or ``x.detach()``, which is
        what ``Variable(x)`` gives today). The flag has had no effect since 0.4, so the
        program runs as before; what it meant in 0.3, no graph while evaluating, is
        ``torch.no_grad()`` around the evaluation, which is the caller's to add: a guard
        here would also cover the training-mode calls, and the value may be kept as
        state (a hidden state reused by the next forward)."""
        if data is None or len(node.args) != 2 or any(a.star for a in node.args):
            return None  # ``requires_grad=`` too, or arguments not shown: left as reported
        sem = self.ctx.semantic
        value = data.value
        if not sem.values.carries_no_graph(value, sem.tree.function_scope(node)):
            value = codegen.method_call(value, "detach")
        return self.fix(
            self.replace(node, codegen.keep_parens(node, codegen.atomic(value))),
            title=EVAL_MODE_FIX_TITLE,
            kind=EVAL_MODE_FIX_KIND,
            applicability="safe",
            remove_imports=sem.names.imports_of(VARIABLE),
        )

    def _passed_on(self, node: cst.Call) -> None:
        """``as_inputs(batch, volatile=True)`` where this file's ``as_inputs`` passes the
        flag on to ``Variable(..., volatile=...)``: the true value the run-time flag
        takes is here. No fix: what the helper returns may reach code that trains."""
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value != "volatile" or bool_value(arg.value) is False:
                continue
            sem = self.ctx.semantic
            if isinstance(arg.value, cst.Name):
                binding = sem.scopes.reaching_binding(arg.value)
                if binding is not None and binding.form == "param":
                    return  # a flag passed through: reported where its caller gives a value
            callee = sem.calls.local_function(node)
            if callee is None or not (
                sem.calls.forwarded_to(callee, "volatile", "volatile", 2, VARIABLE) is not None or self._kwargs_to_variable(callee)
            ):
                return
            where = "what it returns" if bool_value(arg.value) is True else "where the flag is true, what it returns"
            consequence = (
                f": `{callee.name.value}` passes it on to `Variable(...)`, so {where} still records "
                "an autograd graph; drop the flag and run this code under `torch.no_grad()`"
            )
            self.report(arg, value=self.ctx.code_for(arg.value), consequence=consequence)
            return

    def _kwargs_to_variable(self, func: cst.FunctionDef) -> bool:
        """``def make_var(val, cuda=False, **kwargs): return Variable(val, **kwargs)``: a
        keyword the function does not name lands in its ``**kwargs``, which it hands to
        ``Variable(...)`` whole."""
        params = func.params
        star = params.star_kwarg
        if star is None or any(p.name.value == "volatile" for p in (*params.params, *params.kwonly_params, *params.posonly_params)):
            return False
        name = star.name.value
        sem = self.ctx.semantic
        for sub in walk(func.body):
            if isinstance(sub, cst.Call) and sem.names.is_call_to(sub, VARIABLE):
                for a in sub.args:
                    if a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == name:
                        binding = sem.scopes.reaching_binding(a.value)
                        return binding is not None and binding.form == "param"
        return False

    def _unsafe_decorator(self, node: cst.Call, func: cst.FunctionDef) -> bool:
        """Whether the fix of ``node`` in ``func`` is a ``no_grad`` decorator that may change
        what the program computes: gradients are not already off at ``node``, and the
        decorator puts the whole function under no_grad, safe only where nothing it
        computes can reach a backward elsewhere (callers, helpers, callbacks, the
        coroutine that calls a nested function). Who calls it is not known yet."""
        if self.ctx.semantic.gradmode.mode_at(node).disabled is True:
            return False
        # The costliest question last: the answer is the same in any order.
        return (
            in_async_function(self.ctx, func)
            or is_generator(func)
            or guard_changes_more_than_graph(self.ctx)  # hooks, grad-dependent fast paths
            or self.ctx.semantic.gradmode.may_compute_gradients(func)
            or function_values_escape(self.ctx, func)
        )

    def _fix(self, node: cst.Call, volatile: cst.Arg) -> Optional[Fix]:
        sem = self.ctx.semantic
        flag = bool_value(volatile.value)
        if flag is False:
            return self._no_op_flag_fix(node, volatile)
        data = call_arg(node, 0, "data")
        if flag is None and self._eval_mode_flag(volatile.value):
            return self._eval_mode_fix(node, data)
        if flag is not True or data is None or any(a.star for a in node.args):
            return None
        func = sem.tree.enclosing_function(node)
        if func is None or func.asynchronous is not None or sem.gradmode.needs_gradients(func):
            return None
        if self.ctx.safe_fixes_only and self._unsafe_decorator(node, func):
            # The fix below would be unsafe or none, and is thrown away either way: the
            # derivation questions (the costly part for most findings) are not asked.
            return None
        seeds = volatile_inputs(sem, func) or [node]
        if not_derived_leaving(sem, func, seeds) or not_derived_training(sem, func, seeds):
            # `return out, penalty`: `penalty` kept its graph in 0.3 too; `adapter.refresh()`
            # trained in 0.3 too; a decorator would take both. migrate puts a `with` around
            # what flows from the input instead.
            return None
        value = data.value
        stmt = self_assignment(self.ctx, node, allow_volatile=True)
        if stmt is not None:
            # Keyed like GL002's removal: several wrappers in one statement remove it once.
            edits = [self.replace(stmt, cst.RemovalSentinel.REMOVE, key=("self-assignment", id(stmt)))]
        else:
            if not sem.values.carries_no_graph(value, sem.tree.function_scope(node)):
                value = codegen.method_call(value, "detach")
            edits = [self.replace(node, codegen.keep_parens(node, codegen.atomic(value)))]
        imports: Tuple[ImportSpec, ...] = ()
        applicability = "safe"
        # Gradients already off here, by a guard around the call or because every caller
        # runs it under one: removing the wrapper is the whole fix, a guard would only nest.
        if sem.gradmode.mode_at(node).disabled is not True:
            ref = sem.names.torch_ref_at(func)
            if ref is None:
                return None  # `torch.no_grad()` would not name the module there
            torch_name, imports = ref
            if self._unsafe_decorator(node, func):
                applicability = "unsafe"
            guard = f"{torch_name}.{grad_guard(self.ctx, func, None)}()"
            edits.append(
                self.transform(func, lambda f: codegen.add_decorator(f, guard), key=("grad-guard-decorator", id(func)))
            )
            title = f"Remove the `Variable` wrapper and decorate `{func.name.value}` with `@{guard}`"
        else:
            title = "Remove the `Variable` wrapper (gradients are already disabled here)"
        return self.fix(
            *edits,
            title=title,
            applicability=applicability,
            add_imports=imports,
            remove_imports=sem.names.imports_of(VARIABLE),
        )
