"""Whether a call can bind to a function's signature at all.

A call that passes a keyword the function does not take, or more positional
arguments than it has, raises ``TypeError`` before the body runs: for a
module's ``forward``, no forward runs and no graph is recorded (issue 26).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from gradlint.semantic.syntax import called_module

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


def module_call_rejected(sem: "SemanticModel", call: cst.Call, module: cst.BaseExpression) -> bool:
    """Whether ``call`` of ``module`` cannot run its forward: the module's class (of
    this file, certain) has a ``forward`` that rejects the call's arguments, and no
    ``__call__`` of its own."""
    forward = sem.modules.forward_method(module)
    cls = sem.tree.enclosing_class(forward) if forward is not None else None
    if forward is None or cls is None:
        return False
    if any(isinstance(s, cst.FunctionDef) and s.name.value == "__call__" for s in cls.body.body):
        return False
    return rejects_call(forward, call)


def rejects_call(func: cst.FunctionDef, call: cst.Call, bound_self: bool = True) -> bool:
    """Whether ``call`` certainly fails to bind to ``func``'s parameters (``self``
    bound already when ``bound_self``): a keyword no parameter takes with no
    ``**kwargs``, or more positional arguments than there are with no ``*args``.
    Unknown (False) with a ``*``/``**`` argument in the call, or a decorated
    ``func`` (a decorator may change the signature)."""
    if func.decorators:
        return False
    if any(a.star for a in call.args):
        return False
    params = func.params
    positional = [*params.posonly_params, *params.params]
    if bound_self and positional:
        positional = positional[1:]
    by_keyword = {p.name.value for p in (*params.params, *params.kwonly_params)}
    if not isinstance(params.star_kwarg, cst.Param):
        for a in call.args:
            if a.keyword is not None and a.keyword.value not in by_keyword:
                return True
    if not isinstance(params.star_arg, cst.Param):
        if sum(1 for a in call.args if a.keyword is None) > len(positional):
            return True
    return False


def other_framework_call(sem: "SemanticModel", call: cst.Call) -> bool:
    """The premise "the model is a PyTorch module": a PaddlePaddle layer's forward
    (its class derives from ``paddle.nn.Layer``, or the file imports Paddle and no
    ``torch``) records no PyTorch graph, and ``torch.no_grad()`` does not apply."""
    receiver = called_module(call)
    if receiver is None and isinstance(call.func, cst.Attribute):
        receiver = call.func.value
    if receiver is None:
        return sem.modules.other_framework_file()
    return sem.modules.other_framework_model(receiver)
