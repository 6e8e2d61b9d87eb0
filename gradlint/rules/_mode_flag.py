"""GL101's shared train/eval steps: ``model.train(mode=is_train)`` in a function that
runs both phases and trains only under ``if is_train:``, called in the file with
constants that make the flag false (``run_epoch(..., split="valid")``). On that
path the model is in eval mode and its forwards record a graph no backward uses.

Each premise is read from the file: the flag is a local name bound once, as a
parameter or as an expression of parameters (``is_train = split == "train"``); a
call of the function passes constants that decide it false (``semantic.branches``);
what runs then is the code those constants and the flag's falsity leave live."""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from gradlint.semantic import branches
from gradlint.semantic.syntax import is_model_ref

Switch = Tuple[str, str, cst.Call]  # (model, flag name, the ``train(...)`` call)


def flag_switch(code_for, stmt: cst.CSTNode) -> Optional[Switch]:
    """``model.train(flag)`` / ``model.train(mode=flag)`` as a statement of its own,
    ``flag`` a plain name."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Expr:
        return None
    call = stmt.body[0].value
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != "train":
        return None
    if len(call.args) != 1 or call.args[0].star:
        return None
    keyword = call.args[0].keyword
    if keyword is not None and keyword.value != "mode":
        return None
    flag = call.args[0].value
    if type(flag) is not cst.Name or flag.value in ("True", "False", "None") or not is_model_ref(call.func.value):
        return None
    return code_for(call.func.value), flag.value, call


def false_constants(sem, func: cst.FunctionDef, flag: str, grad_on: Callable[[cst.Call], bool]) -> Optional[Dict[str, object]]:
    """The constants of a call of ``func`` in this file, made with gradients on
    (``grad_on``), that decide ``flag`` false, with ``flag`` itself among them; None
    when no call does. ``flag`` is bound once in ``func``: a parameter, or an
    assignment of an expression ``branches`` decides."""
    bindings = sem.scopes.bindings(func).get(flag, [])
    if len(bindings) != 1 or bindings[0].form not in ("param", "assign"):
        return None
    test = bindings[0].value if bindings[0].form == "assign" else cst.Name(flag)
    if test is None:
        return None
    method = sem.tree.method_class(func) is not None
    for call in sem.calls.call_sites(func) or []:
        constants = branches.constant_params(func, call, method and isinstance(call.func, cst.Attribute))
        if constants and branches.decided(test, constants) is False and grad_on(call):
            return {**constants, flag: False}
    return None


def live_pieces(stmts: Sequence[cst.CSTNode], constants: Dict[str, object]) -> List[cst.CSTNode]:
    """What of ``stmts`` may run when ``constants`` hold (``branches.live_code``)."""
    return [piece for stmt in stmts for piece in branches.live_statements(stmt, constants)]
