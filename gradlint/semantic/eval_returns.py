"""Functions that return a model they put in eval mode: the project index's proof
that ``model = load_model(cfg)``, a call of another file's function, binds an
eval-mode module, as ``Modules.returns_in_eval`` proves it for a function of the
same file.

A summary records, for each module-level function of a file (no decorator, not
``async``), the positions of its return value that surely hold a value the body
put in eval mode: every ``return`` (and no ``yield``) is a statement of the body
itself, so the statements before it always ran; one of them switched the name
returned to eval mode (``m.eval()``, ``m.train(False)``, ``m = Net().eval()``),
and nothing after it may take it out again: any use of the name but a call of a
method that keeps the mode (``m.to(dev)``, ``m.load_state_dict(sd)``), a
rebinding to other than such a call on it (``m = m.half()``, in a branch or
not), or handing it to other code (which may train it) ends the proof. A return
of a tuple display (``return model, tokenizer``) records the index and length of
each element that is such a name: ``model, tok = load(p)`` unpacks it.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

# name -> [[index, length], ...]; [-1, 0] for the whole value
ReturnsEval = Dict[str, List[List[int]]]

# Methods of a module that leave its mode as it is.
_KEEPING = frozenset("to cuda cpu half float double bfloat16 load_state_dict requires_grad_ share_memory zero_grad eval".split())
# Builtins that only look at what they are given.
_INSPECTING = frozenset("print len isinstance hasattr type id str repr callable".split())


def summary_entry(tree: ast.Module, unit_tests: bool) -> Dict[str, ReturnsEval]:
    """The summary's ``returns_eval`` entry, left out when empty (as in a file of unit
    tests, whose functions are no project's helpers)."""
    found: ReturnsEval = {}
    if not unit_tests:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.decorator_list:
                positions = returned_in_eval(node)
                if positions:
                    found[node.name] = sorted([list(p) for p in positions])
    return {"returns_eval": found} if found else {}


def valid(entry: object) -> bool:
    """Whether ``entry`` (read back from a cache) has the shape ``summary_entry`` gives."""
    return isinstance(entry, dict) and all(
        isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 and all(type(n) is int for n in p) for p in v)
        for v in entry.values()
    )


def returned_in_eval(func: ast.FunctionDef) -> FrozenSet[Tuple[int, int]]:
    """The positions of ``func``'s return value that hold a name its body left in eval
    mode (see the module's docstring)."""
    own = own_nodes(func.body)
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for n in own):
        return frozenset()
    returns = [n for n in own if isinstance(n, ast.Return)]
    if not returns or any(r not in func.body or r.value is None for r in returns):
        return frozenset()  # a bare return, or one in a branch: the switch may not have run
    left: Set[str] = set()
    for stmt in func.body:
        if isinstance(stmt, ast.Return):
            value = stmt.value
            if isinstance(value, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in value.elts):
                n = len(value.elts)
                return frozenset((i, n) for i, e in enumerate(value.elts) if isinstance(e, ast.Name) and e.id in left)
            return frozenset({(-1, 0)}) if isinstance(value, ast.Name) and value.id in left else frozenset()
        switched = _switch(stmt)
        left = {m for m in left if not _may_end(stmt, m)}
        if switched is not None:
            left.add(switched)
    return frozenset()


def _switch(stmt: ast.stmt) -> Optional[str]:
    """``m.eval()`` / ``m.train(False)`` (after calls that keep the mode: ``m.to(d).eval()``)
    as a statement, or ``m = <expr>.eval()`` (``m = Net(cfg).eval().to(d)``): ``m``."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = _strip_keeping(stmt.value)
        if call is not None and _is_eval_call(call):
            base = call.func.value  # type: ignore[attr-defined]
            while isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr in _KEEPING:
                base = base.func.value
            return base.id if isinstance(base, ast.Name) else None
        return None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        call = _strip_keeping(stmt.value)
        if call is not None and _is_eval_call(call):
            return stmt.targets[0].id
    return None


def _strip_keeping(expr: ast.expr) -> Optional[ast.Call]:
    """The last ``eval()`` / ``train(False)`` of a call chain, past the calls after it that
    keep the mode (``.eval().to(d)``); None when the chain ends in any other call."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if _is_eval_call(expr):
            return expr
        if expr.func.attr not in _KEEPING:
            return None
        expr = expr.func.value
    return None


def _is_eval_call(call: ast.Call) -> bool:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "eval":
        return not call.args and not call.keywords
    flags = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    return func.attr == "train" and len(flags) == 1 and isinstance(flags[0], ast.Constant) and flags[0].value is False


def _may_end(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` may take ``name`` out of eval mode, rebind it or hand it on:
    every read of it must be the receiver of a method that keeps the mode, or the
    argument of a builtin that only looks; every binding of it a single-target
    assignment of such a method's result on it (``m = m.half()``)."""
    parents: Dict[int, ast.AST] = {}
    for node in ast.walk(stmt):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, ast.Load):
            if _keeping_receiver(node, parent, parents):
                continue
            if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) and parent.func.id in _INSPECTING:
                continue
            return True
        if not (isinstance(parent, ast.Assign) and parent.targets == [node] and _keeping_chain_on(parent.value, name)):
            return True
    return False


def _keeping_receiver(node: ast.Name, parent: Optional[ast.AST], parents: Dict[int, ast.AST]) -> bool:
    """``node.<keeping method>(...)``: the name read as the receiver of a mode-keeping call."""
    if not (isinstance(parent, ast.Attribute) and parent.attr in _KEEPING and parent.attr != "eval"):
        return False
    call = parents.get(id(parent))
    return isinstance(call, ast.Call) and call.func is parent


def _keeping_chain_on(expr: ast.expr, name: str) -> bool:
    """``name.to(d).half()``: mode-keeping calls on ``name`` itself."""
    if not isinstance(expr, ast.Call):
        return False
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _KEEPING:
        expr = expr.func.value
    return isinstance(expr, ast.Name) and expr.id == name


def own_nodes(body: List[ast.stmt]) -> List[ast.AST]:
    """The nodes of ``body``, not those of nested functions, lambdas and classes."""
    out: List[ast.AST] = []
    stack: List[ast.AST] = list(body)
    while stack:
        cur = stack.pop()
        out.append(cur)
        stack += [c for c in ast.iter_child_nodes(cur) if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]
    return out
