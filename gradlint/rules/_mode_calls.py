"""GL101: eval mode chosen by a constant argument, and methods that only subclasses define.

``_epoch(loader, mode="eval")`` runs ``if mode == "train": model.train() elif
mode == "eval": model.eval()`` and then the batches: the constant decides the
``if`` (``branches``), so for that call the model is in eval mode from there on,
and the forwards that follow run with the caller's grad mode. Such a call is
reported where it is made (``check_mode_calls``), its region being the
callee's statements with each decided ``if`` replaced by the branch taken.

``self.step(batch)`` where ``step`` is abstract in the class (``@abstractmethod``,
or a body that only documents it, passes or raises ``NotImplementedError``)
runs an override of a subclass: when the file's subclasses override it and
every override runs the model, the call is a forward of it (``overrides``).
"""

from __future__ import annotations

from typing import List, Optional, Sequence

import libcst as cst

from gradlint.rules._eval_flow import _Flow, _Region
from gradlint.semantic import branches
from gradlint.semantic.syntax import is_eval_call
from gradlint.semantic.tree import walk


def duck_eval(sem, code_for, stmt: cst.CSTNode):
    """``if hasattr(m, "eval"): m.eval()``: afterwards ``m`` is in eval mode, or it
    has no ``eval`` and so is no ``nn.Module`` (and records no graph of its own).
    ``if m.training: m.eval()``: afterwards ``m`` is in eval mode either way."""
    if type(stmt) is not cst.If or stmt.orelse is not None or not isinstance(stmt.body, cst.IndentedBlock):
        return None
    test = stmt.test
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "hasattr"
        and len(test.args) == 2
        and isinstance(test.args[1].value, cst.SimpleString)
        and test.args[1].value.evaluated_value in ("eval", "train")
    ):
        tested = test.args[0].value
    elif isinstance(test, cst.Attribute) and test.attr.value == "training":
        tested = test.value
    else:
        return None
    switches = [sem.modules.eval_switch(s) for s in stmt.body.body]
    if len(switches) != 1 or switches[0] is None:
        return None
    return switches[0] if switches[0].model == code_for(tested) else None


# -- methods only subclasses define ------------------------------------------------


def _abstract(method: cst.FunctionDef) -> bool:
    """Decorated ``@abstractmethod``, or a body of a docstring, ``pass``, ``...`` or
    ``raise NotImplementedError``: the method itself computes nothing."""
    for d in method.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        name = target.attr.value if isinstance(target, cst.Attribute) else target.value if isinstance(target, cst.Name) else ""
        if name == "abstractmethod":
            return True
    if not isinstance(method.body, cst.IndentedBlock):
        return False
    for stmt in method.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
                continue
            if isinstance(small, cst.Raise) and small.exc is not None:
                exc = small.exc.func if isinstance(small.exc, cst.Call) else small.exc
                if isinstance(exc, cst.Name) and exc.value == "NotImplementedError":
                    continue
            return False
    return True


def _base_names(cls: cst.ClassDef) -> List[str]:
    """``class Pose(TrainingRunner[PoseModel])``: ``["TrainingRunner"]``."""
    out = []
    for base in cls.bases:
        value = base.value.value if isinstance(base.value, cst.Subscript) else base.value
        if base.keyword is None and isinstance(value, cst.Name):
            out.append(value.value)
    return out


def overrides(sem, method: cst.FunctionDef) -> List[cst.FunctionDef]:
    """The methods of the module's top-level classes deriving (in this file) from the
    class of the abstract ``method`` that override it; empty when ``method`` is not
    abstract or no class of the file derives from its class."""
    cls = sem.tree.method_class(method)
    if cls is None or not _abstract(method):
        return []
    classes = [s for s in sem.module.body if isinstance(s, cst.ClassDef)]
    below = {cls.name.value}
    grew = True
    while grew:  # subclasses of subclasses
        grew = False
        for c in classes:
            if c.name.value not in below and below & set(_base_names(c)):
                below.add(c.name.value)
                grew = True
    found = []
    for c in classes:
        if c is cls or c.name.value not in below:
            continue
        for stmt in c.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == method.name.value and not _abstract(stmt):
                found.append(stmt)
    return found


# -- eval mode chosen by a constant argument ---------------------------------------------


def decided_body(body: Sequence[cst.BaseStatement], constants) -> List[cst.BaseStatement]:
    """``body`` with every ``if`` the constants decide replaced by the statements of the
    branch taken (none when no branch is), recursively; other statements as they are."""
    out: List[cst.BaseStatement] = []
    for stmt in body:
        node: Optional[cst.BaseStatement] = stmt
        while isinstance(node, cst.If):
            taken = branches.decided(node.test, constants)
            if taken is None:
                break
            other = node.orelse
            if taken:
                out += decided_body(node.body.body, constants) if isinstance(node.body, cst.IndentedBlock) else [node]
                node = None
            elif isinstance(other, cst.If):
                node = other
            else:
                if other is not None:
                    out += decided_body(other.body.body, constants) if isinstance(other.body, cst.IndentedBlock) else []
                node = None
        if node is not None:
            out.append(node)
    return out


def check_mode_calls(rule, scope) -> None:
    """Reports calls of ``scope`` to a method or function of the file that, with the
    constants the call passes, puts a model in eval mode only under an ``if`` those
    constants decide, then runs it with gradients on (see the module docstring)."""
    sem = rule.ctx.semantic
    if not rule._has_eval or not isinstance(scope, cst.FunctionDef):
        return  # no ``eval()`` anywhere in the file for a constant to choose
    skip: Optional[bool] = None
    # The cheap tests first (a call of a function of the file that passes a
    # constant): most calls are none, and the guard and skip tests walk far.
    for call in walk(scope.body):
        if type(call) is not cst.Call:
            continue
        func = sem.calls.local_function(call)
        if func is None or func is scope or not isinstance(func.body, cst.IndentedBlock):
            continue
        method = sem.tree.method_class(func) is not None and isinstance(call.func, cst.Attribute)
        constants = branches.constant_params(func, call, method)
        if not constants:
            continue
        if skip is None:
            skip = bool(rule._skip_function(scope))
        if skip:
            return
        if sem.gradmode.guard_at(call) is not None or rule._under_other_guard(call, scope) or rule._skip_function(func):
            continue
        _check_mode_call(rule, scope, call, func, constants)


def _check_mode_call(rule, scope: cst.FunctionDef, call: cst.Call, func: cst.FunctionDef, constants) -> None:
    sem = rule.ctx.semantic
    if not isinstance(func.body, cst.IndentedBlock):
        return
    flat = decided_body(func.body.body, constants)
    start = next((i for i, s in enumerate(flat) if _direct_eval(sem, s)), None)
    if start is None or rule._regions(func):
        return  # no eval() that the constants bring to the top, or an eval() of its own: checked alone
    switch = sem.modules.eval_switch(flat[start])
    model = switch.model
    end = start + 1
    while end < len(flat) and not sem.modules.ends_eval_mode(flat[end], model):
        end += 1
    stmts = flat[start + 1 : end]
    if any(rule._wants_gradients(s) for s in stmts):
        return
    rule._known = (func, constants)
    try:
        calls = [c for s in stmts for c, _ in rule._forwards(s, frozenset({model})) if sem.gradmode.guard_at(c) is None]
    finally:
        rule._known = None
    if not calls:
        return
    flow = _Flow(rule.ctx, func, frozenset({model}))
    region = _Region(cst.IndentedBlock(body=flat), start + 1, end, {model}, {model: switch.call}, [(c, model) for c in calls])
    if rule._results_reach_backward(func, flow, stmts, region):
        return
    holder = _statement_of(sem, call, scope)
    if holder is None or not rule._records(call, scope):
        return
    block, index = holder
    here = _Region(block, index, index + 1, {model}, dict(region.eval_line), [(call, model)])
    rule._report(call, rule._fix(scope, here, _Flow(rule.ctx, scope, frozenset({model}))), rule._in_eval_mode(call, model, region.eval_line[model]))


def _direct_eval(sem, stmt: cst.CSTNode) -> bool:
    switch = sem.modules.eval_switch(stmt)
    return switch is not None and is_eval_call(switch.call)


def _statement_of(sem, node: cst.CSTNode, scope: cst.FunctionDef):
    """The block of ``scope`` that holds the statement holding ``node``, and its index."""
    cur: Optional[cst.CSTNode] = node
    while cur is not None and cur is not scope:
        parent = sem.tree.parent(cur)
        if isinstance(parent, cst.IndentedBlock):
            index = next((i for i, s in enumerate(parent.body) if s is cur), None)
            return None if index is None else (parent, index)
        cur = parent
    return None


# -- plain objects with an ``eval`` of their own -----------------------------------


def plain_eval_object(sem, expr: cst.BaseExpression) -> bool:
    """``self.scorer`` where every value it may hold is built by a class of this file
    that is surely no ``nn.Module`` (``Modules.not_module_class``) and defines its own
    ``eval``: ``self.scorer.eval()`` runs that method, no mode switch of a module, and
    ``self.scorer(x)`` runs the class's ``__call__``, no forward recording a graph."""
    modules = sem.modules
    classes = modules.declared_classes(expr)
    if not classes:
        return False
    for ref in classes:
        if not isinstance(ref, cst.Name) or sem.names.is_imported(ref):
            return False
        cls = modules._top_classes().get(ref.value)
        if cls is None or not modules.not_module_class(cls) or not isinstance(cls.body, cst.IndentedBlock):
            return False
        if not any(isinstance(s, cst.FunctionDef) and s.name.value == "eval" for s in cls.body.body):
            return False
    return True
