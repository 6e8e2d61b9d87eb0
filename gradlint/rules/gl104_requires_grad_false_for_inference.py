"""GL104 requires-grad-false-for-inference: ``x.requires_grad = False`` on an input
does not stop the model from recording a graph through its parameters."""

from __future__ import annotations

import re
from typing import Iterator, Tuple

import libcst as cst

from gradlint.rule import Rule
from gradlint.semantic.syntax import bool_value, call_arg, called_module, is_model_ref, looks_like_model
from gradlint.semantic.torch_api import CONVERSIONS
from gradlint.semantic.tree import FunctionScope as Scope, walk


class RequiresGradFalseForInference(Rule):
    code = "GL104"
    triggers = ("requires_grad",)
    # ``x.requires_grad = False``, ``x.requires_grad_(False)``, ``...(requires_grad=False)``
    gates = (re.compile(r"requires_grad[\s)\\]*=[\s(\\]*False\b|requires_grad_[\s\\]*\([\s(\\]*False\b"),)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or bool_value(node.value) is not False:
            return
        target = node.targets[0].target
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad":
            self._check(node, target.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_"):
            return
        flag = call_arg(node, 0, "requires_grad")
        if flag is None or bool_value(flag.value) is not False:
            return
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Expr):
            self._check(node, func.value)
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 and parent.value is node:
            # ``x = x.to(dev).requires_grad_(False)``: the input is what the name now holds
            self._check(node, parent.targets[0].target)

    def _check(self, node: cst.CSTNode, tensor: cst.BaseExpression) -> None:
        sem = self.ctx.semantic
        if not is_model_ref(tensor) or looks_like_model(tensor):
            return
        root = tensor
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if isinstance(root, cst.Name) and root.value in ("self", "cls"):
            return  # a buffer or parameter of a module
        scope = sem.tree.function_scope(node)
        body = scope if isinstance(scope, cst.Module) else scope.body
        if sem.gradmode.needs_gradients(body) or self._is_parameter(tensor, scope):
            return
        text = self.ctx.code_for(tensor)
        line = self.ctx.position(node).start.line
        for call, model in self._model_calls(body, scope, text, line):
            if sem.gradmode.runs_without_grad(call) or model in sem.modules.frozen_models():
                continue
            self.report(
                node,
                target=text,
                model=model,
                line=self.ctx.position(call).start.line,
            )
            return

    def _is_parameter(self, tensor: cst.BaseExpression, scope: Scope) -> bool:
        """A loop variable over ``model.parameters()``: setting its flag freezes the model."""
        if not isinstance(tensor, cst.Name):
            return False
        for b in self.ctx.semantic.scopes.bindings(scope).get(tensor.value, []):
            if b.kind in ("for", "unpack") and b.value is not None and "param" in self.ctx.code_for(b.value):
                return True
        return False

    def _model_calls(self, body: cst.CSTNode, scope: Scope, tensor: str, after: int) -> Iterator[Tuple[cst.Call, str]]:
        """Later calls of a model with ``tensor`` (or a conversion of it) as an argument."""
        sem = self.ctx.semantic
        eval_models = {s.model for s in map(sem.modules.eval_switch, walk(body)) if s is not None}
        for node in walk(body):
            if not isinstance(node, cst.Call) or self.ctx.position(node).start.line <= after:
                continue
            func = called_module(node)
            if func is None:
                continue
            model = self.ctx.code_for(func)
            # a model: put in eval mode here, proven a module, or (preview) named like one
            if model not in eval_models and not sem.modules.is_module(func) and not (self.preview and looks_like_model(func)):
                continue
            if sem.modules.is_loss_module(func):
                continue  # ``self.mse_loss(out, target)``: a loss has no parameters to record a graph through
            if any(_is_tensor_arg(arg.value, tensor, self.ctx) for arg in node.args if arg.keyword is None):
                yield node, model


def _is_tensor_arg(expr: cst.BaseExpression, tensor: str, ctx) -> bool:
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in CONVERSIONS:
        expr = expr.func.value
    return ctx.code_for(expr) == tensor
