"""Calls that hand another file's function a model they put in eval mode: the
project index's proof that a function's parameter holds an eval-mode module.

``model.eval()`` in ``main.py``, then ``ranking_and_hits(model, batches)`` of
``evaluation.py``: the forwards that ``ranking_and_hits`` runs on its parameter
run in eval mode, with the grad mode of the call. Within one file the semantic
model binds arguments to parameters itself; across files only the summaries
can say it. A summary records, for each call of an imported function (what
``_Summarizer._function_target`` resolves it to), which of its arguments are
names the calling function surely left in eval mode: a statement before the
call, in a block that holds it (or one around it), calls ``name.eval()`` or
``name.train(False)``, and nothing in between (nor in a loop around the call)
may take it out again: a ``train()`` of it, a rebinding, or a call that hands
it to other code (except further calls of the same function, which the callee
itself shows to keep the mode, or it would not be reported).

Whether the calls are made with gradients on is the index's count of calls
under no_grad (``Project.function_call_counts``); whether every call is one of
these is the count of all calls. A function with any decorator is left out:
it may change grad mode or run some other way.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Set

# target -> one entry per call proven: [line, line of the eval() switch, positions, keywords]
EvalPasses = Dict[str, List[List[object]]]

# Builtins that only look at what they are given.
_INSPECTING = frozenset("print len isinstance hasattr getattr type id str repr callable".split())
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def summary_entry(tree: ast.Module, target_of: Callable[[ast.expr], Optional[str]], unit_tests: bool) -> Dict[str, EvalPasses]:
    """The summary's ``eval_passes`` entry, left out when it is empty (as a file whose
    functions are unit tests always leaves it: a test's model is the test's own)."""
    found = {} if unit_tests else eval_passes(tree, target_of)
    return {"eval_passes": found} if found else {}


def eval_passes(tree: ast.Module, target_of: Callable[[ast.expr], Optional[str]]) -> EvalPasses:
    """The calls of ``tree``'s module-level functions (and methods) that pass
    another file's function a name in eval mode: see the module's docstring."""
    found: EvalPasses = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
            _Walker(target_of, found).block(node.body, {})
    return found


def _eval_switch(stmt: ast.stmt) -> Optional[str]:
    """``m.eval()`` / ``m.train(False)`` as a statement: ``m``."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    if func.attr == "eval" and not call.args and not call.keywords:
        return func.value.id
    flags = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    if func.attr == "train" and len(flags) == 1 and isinstance(flags[0], ast.Constant) and flags[0].value is False:
        return func.value.id
    return None


def _own_nodes(node: ast.AST) -> List[ast.AST]:
    """``node`` and what it holds, not what nested functions, lambdas and classes hold."""
    out: List[ast.AST] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        out.append(cur)
        stack += [c for c in ast.iter_child_nodes(cur) if not isinstance(c, _NESTED)]
    return out


class _Walker:
    def __init__(self, target_of: Callable[[ast.expr], Optional[str]], found: EvalPasses) -> None:
        self.target_of = target_of
        self.found = found

    def block(self, body: List[ast.stmt], state: Dict[str, List[object]]) -> None:
        """``state``: name -> [line of its eval(), the targets it was handed to since]."""
        for stmt in body:
            if isinstance(stmt, _NESTED):
                continue
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                # A later iteration runs after the end of the body: what the body may
                # undo is undone before its first statement too.
                for name in [n for n in state if self._ends(stmt, n, state)]:
                    del state[name]
            switch = _eval_switch(stmt)
            if switch is not None:
                state[switch] = [stmt.lineno, []]
                continue
            inner = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody", "handlers")]
            blocks = [b for b in inner if isinstance(b, list) and b and isinstance(b[0], (ast.stmt, ast.ExceptHandler))]
            if blocks:
                for child in ast.iter_child_nodes(stmt):
                    if isinstance(child, ast.expr) or isinstance(child, ast.withitem):
                        self._simple(child, state)
                for b in blocks:
                    stmts = [s for h in b for s in h.body] if isinstance(b[0], ast.ExceptHandler) else b
                    # A branch may or may not run: what any branch undoes is undone
                    # after it, and what one switches on holds only inside it.
                    branch = {n: [line, list(targets)] for n, (line, targets) in state.items()}  # type: ignore[call-overload]
                    self.block(stmts, branch)
                    for name in list(state):
                        if name not in branch or branch[name][0] != state[name][0]:
                            del state[name]
                        else:
                            state[name][1] = branch[name][1]
            else:
                self._simple(stmt, state)

    def _simple(self, node: ast.AST, state: Dict[str, List[object]]) -> None:
        nodes = _own_nodes(node)
        for sub in nodes:
            if isinstance(sub, ast.Call):
                self._call(sub, state)
        for sub in nodes:
            for name in list(state):
                if self._rebinds(sub, name) or self._trains(sub, name):
                    del state[name]

    def _call(self, call: ast.Call, state: Dict[str, List[object]]) -> None:
        passed = {
            name
            for name in state
            if any(isinstance(a, ast.Name) and a.id == name for a in [*call.args, *(k.value for k in call.keywords)])
        }
        if not passed:
            return
        if isinstance(call.func, ast.Name) and call.func.id in _INSPECTING:
            return
        target = self.target_of(call.func)
        if target is None:
            for name in passed:
                del state[name]  # handed to code of this file or a method: it may train it
            return
        positions: List[int] = []
        keywords: List[str] = []
        lines: Set[int] = set()
        for name in passed:
            line, targets = state[name]
            if any(t != target for t in targets):  # type: ignore[attr-defined]
                del state[name]  # another function had it first and may have trained it
                continue
            targets.append(target)  # type: ignore[attr-defined]
            lines.add(line)  # type: ignore[arg-type]
            positions += [i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == name]
            keywords += [k.arg for k in call.keywords if k.arg and isinstance(k.value, ast.Name) and k.value.id == name]
        if any(isinstance(a, ast.Starred) for a in call.args):
            return  # positions after a ``*args`` cannot be told
        if positions or keywords:
            self.found.setdefault(target, []).append([call.lineno, min(lines), sorted(positions), sorted(keywords)])

    def _ends(self, stmt: ast.stmt, name: str, state: Dict[str, List[object]]) -> bool:
        """Whether ``stmt`` (a loop) may take ``name`` out of eval mode anywhere in it."""
        for sub in _own_nodes(stmt):
            if self._rebinds(sub, name) or self._trains(sub, name):
                return True
            if isinstance(sub, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == name for a in [*sub.args, *(k.value for k in sub.keywords)]
            ):
                target = self.target_of(sub.func)
                if target is None or any(t != target for t in state[name][1]):  # type: ignore[attr-defined]
                    return True
        return False

    @staticmethod
    def _rebinds(node: ast.AST, name: str) -> bool:
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        return isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names

    @staticmethod
    def _trains(node: ast.AST, name: str) -> bool:
        """``name.train()`` (not ``train(False)``), or any other method call on it
        that may change its mode through the module's own code (``name.apply(f)``)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            return False
        func = node.func
        if not (isinstance(func.value, ast.Name) and func.value.id == name):
            return False
        return func.attr == "train" and not (
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value is False
        )
