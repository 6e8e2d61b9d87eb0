"""GL101's shared train/eval steps: ``model.train(mode=is_train)`` in a function that
runs both phases and trains only under ``if is_train:``, called in the file with
constants that make the flag false (``run_epoch(..., split="valid")``). On that
path the model is in eval mode and its forwards record a graph no backward uses.

Each premise is read from the file: the flag is a local name bound once, as a
parameter or as an expression of parameters (``is_train = split == "train"``); a
call of the function passes constants that decide it false (``semantic.branches``);
what runs then is the code those constants and the flag's falsity leave live."""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from gradlint.semantic import branches
from gradlint.semantic.syntax import is_model_ref

# (model, flag name, the switch call, the flag's value on the path where the model is in eval mode)
Switch = Tuple[str, str, cst.Call, bool]


def flag_switch(code_for, stmt: cst.CSTNode) -> Optional[Switch]:
    """``model.train(flag)`` / ``model.train(mode=flag)`` as a statement of its own,
    ``flag`` a plain name, or the same spelled as a branch (``_branch_switch``)."""
    if type(stmt) is cst.If:
        return _branch_switch(code_for, stmt)
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
    return code_for(call.func.value), flag.value, call, False


def _branch_switch(code_for, stmt: cst.If) -> Optional[Switch]:
    """``if flag: m.train() else: m.eval()`` (or ``if not flag: m.eval() else:
    m.train()``) is ``m.train(flag)``: eval mode on the path where ``flag`` is false;
    ``if evaluate: m.eval() else: m.train()`` the other way round, eval mode where
    the flag is true. The switch is the ``eval()`` call, which the message names."""
    if type(stmt.orelse) is not cst.Else:
        return None
    test, negated = stmt.test, False
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test, negated = test.expression, True
    if type(test) is not cst.Name or test.value in ("True", "False", "None"):
        return None
    on_true, on_false = _mode_call(code_for, stmt.body), _mode_call(code_for, stmt.orelse.body)
    if on_true is None or on_false is None:
        return None
    when_true, when_false = (on_false, on_true) if negated else (on_true, on_false)
    if when_true[0] != when_false[0] or when_true[1] == when_false[1]:
        return None
    evaluating = when_false if when_true[1] else when_true
    return evaluating[0], test.value, evaluating[2], not when_true[1]


def _mode_call(code_for, block: cst.BaseSuite) -> Optional[Tuple[str, bool, cst.Call]]:
    """The one statement of ``block`` as (model, training, call) when it is
    ``m.train()`` / ``m.train(True)`` (training) or ``m.eval()`` / ``m.train(False)``."""
    if type(block) is not cst.IndentedBlock or len(block.body) != 1:
        return None
    stmt = block.body[0]
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Expr:
        return None
    call = stmt.body[0].value
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or not is_model_ref(call.func.value):
        return None
    name = call.func.attr.value
    if name == "eval" and not call.args:
        training = False
    elif name == "train" and not call.args:
        training = True
    elif name == "train" and len(call.args) == 1 and not call.args[0].star and (call.args[0].keyword is None or call.args[0].keyword.value == "mode"):
        value = call.args[0].value
        if type(value) is not cst.Name or value.value not in ("True", "False"):
            return None
        training = value.value == "True"
    else:
        return None
    return code_for(call.func.value), training, call


def deciding_constants(sem, func: cst.FunctionDef, flag: str, grad_on: Callable[[cst.Call], bool], value: bool = False) -> Optional[Dict[str, object]]:
    """The constants of a call of ``func`` in this file, made with gradients on
    (``grad_on``), that decide ``flag`` to be ``value``, with ``flag`` itself among
    them; None when no call does. ``flag`` is bound once in ``func``: a parameter,
    or an assignment of an expression ``branches`` decides."""
    bindings = sem.scopes.bindings(func).get(flag, [])
    if len(bindings) != 1 or bindings[0].form not in ("param", "assign"):
        return None
    test = bindings[0].value if bindings[0].form == "assign" else cst.Name(flag)
    if test is None:
        return None
    method = sem.tree.method_class(func) is not None
    for call in sem.calls.call_sites(func) or []:
        constants = branches.constant_params(func, call, method and isinstance(call.func, cst.Attribute))
        if constants and branches.decided(test, constants) is value and grad_on(call):
            return {**constants, flag: value}
    return None


def live_pieces(stmts: Sequence[cst.CSTNode], constants: Dict[str, object]) -> List[cst.CSTNode]:
    """What of ``stmts`` may run when ``constants`` hold (``branches.live_code``)."""
    return [piece for stmt in stmts for piece in branches.live_statements(stmt, constants)]


def modes_off(sem, method: cst.FunctionDef, call: cst.Call, models: FrozenSet[str]) -> Dict[str, object]:
    """``{"self.encoder.training": False}`` for each attribute of ``self`` in eval mode
    where ``call`` (``self.do_one_epoch(val_eps)``) runs the method, which switches
    none of them itself: the flags its body reads to choose a phase (``mode =
    "train" if self.encoder.training else "val"``)."""
    params = [*method.params.posonly_params, *method.params.params]
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    if not params or params[0].name.value != "self" or not (isinstance(receiver, cst.Name) and receiver.value == "self"):
        return {}
    return {
        model + ".training": False
        for model in models
        if model.startswith("self.") and model[5:].replace(".", "").isidentifier() and not sem.modules.ends_eval_mode(method.body, model, calls_only=True)
    }
