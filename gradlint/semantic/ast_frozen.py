"""Module classes whose instances record no graph through their own parameters:
the constructor freezes every parameter it made (``for p in self.parameters():
p.requires_grad = False``, ``self.requires_grad_(False)``), or ``forward`` runs
under ``torch.no_grad``/``inference_mode``. The FID feature extractor is the
common case: ``InceptionV3(dims)`` sets ``p.requires_grad = requires_grad`` with
``requires_grad=False`` by default, so a forward of it with gradients on records
a graph only through an input that carries one.

A fact is either ``[]`` (every instance) or ``[parameter, position]``: frozen
unless the constructor call passes that ``__init__`` parameter (whose default is
``False``). A project index fact (``semantic.project``), read with Python's
``ast``; a class of the linted file itself is read the same way.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence

from gradlint.semantic import ast_imports, bounds
from gradlint.semantic.module_files import absolute

KEY = "frozen_classes"
_GUARDS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
# Calls in ``__init__`` after the freeze that may add a parameter it did not freeze.
_ADDS = frozenset({"add_module", "register_module", "register_parameter", "extend", "append", "update", "load_state_dict"})


class _Index(Protocol):
    """What this module asks of ``project.Project`` (which imports this module)."""

    @property
    def summaries(self) -> Mapping[str, Mapping[str, Any]]: ...

    def module_files(self, module: str, origin: str) -> Sequence[str]: ...


def summary_entry(tree: ast.Module, imports: Mapping[str, str]) -> Dict[str, Dict[str, List[object]]]:
    """``{"frozen_classes": {class name: fact}}`` for the module-level classes of
    ``tree`` that have a fact; nothing when none has."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            fact = class_fact(node, imports)
            if fact is not None:
                found[node.name] = fact
    return {KEY: found} if found else {}


def valid(summary: Mapping[str, Any]) -> bool:
    entry = summary.get(KEY, {})
    return isinstance(entry, dict) and all(
        isinstance(v, list) and (v == [] or (len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], int)))
        for v in entry.values()
    )


def class_fact(cls: ast.ClassDef, imports: Mapping[str, str]) -> Optional[List[object]]:
    """The fact of ``cls`` (see the module's docstring), or None when it has none or
    some method may turn gradients back on (``requires_grad_()``, ``p.requires_grad =
    True``)."""
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    init = methods.get("__init__")
    flag: Optional[List[object]] = None
    if init is not None:
        flag = _init_freeze(init)
    forward = methods.get("forward")
    if forward is not None and any(_qualified(d, imports) in _GUARDS for d in forward.decorator_list):
        flag = []
    if flag is None or _unfreezes(cls, flag):
        return None
    return flag


def frozen_by(fact: Sequence[object], positional: int, keywords: Sequence[str], starred: bool) -> bool:
    """Whether a constructor call with ``positional`` arguments and ``keywords`` leaves
    the instance frozen under ``fact``."""
    if not fact:
        return True
    param, position = fact
    return not starred and param not in keywords and positional <= position  # type: ignore[operator]


def index_fact(index: _Index, qualname: str, origin: str, _depth: int = 0) -> Optional[List[object]]:
    """The fact the project index holds for the class ``qualname`` of ``origin``'s
    project, also through a package that re-exports it; None when no file, or more
    than one, defines it with a fact."""
    module, _, name = absolute(qualname, origin).rpartition(".")
    facts = []
    for path in index.module_files(module, origin):
        summary = index.summaries[path]
        if name in summary.get("classes", {}):
            facts.append(summary.get(KEY, {}).get(name))
        elif name in summary.get("exports", {}) and _depth < bounds.PROJECT_BASE_LEVELS:
            facts.append(index_fact(index, summary["exports"][name], origin, _depth + 1))
    return facts[0] if len(facts) == 1 else None


def _init_freeze(init: ast.FunctionDef) -> Optional[List[object]]:
    """The flag of the last top-level statement of ``init`` that freezes every
    parameter of ``self``, when nothing after it adds a parameter."""
    params = _false_defaults(init)
    for i in range(len(init.body) - 1, -1, -1):
        value = _freeze_value(init.body[i])
        if value is None:
            continue
        if any(_adds_parameters(s) for s in init.body[i + 1 :]):
            return None
        if isinstance(value, ast.Constant) and value.value is False:
            return []
        if isinstance(value, ast.Name) and value.id in params and not _rebinds(init, value.id):
            return [value.id, params[value.id]]
        return None
    return None


def _freeze_value(stmt: ast.stmt) -> Optional[ast.expr]:
    """What ``self.requires_grad_(X)`` or ``for p in self.parameters(): p.requires_grad
    = X`` (the loop's one statement) sets ``requires_grad`` to."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_" and _is_self(call.func.value):
            return _flag(call)
        return None
    if not isinstance(stmt, ast.For) or stmt.orelse or len(stmt.body) != 1:
        return None
    it = stmt.iter
    if not (
        isinstance(it, ast.Call) and not it.args and not it.keywords and isinstance(it.func, ast.Attribute)
        and it.func.attr in ("parameters", "named_parameters") and _is_self(it.func.value)
    ):
        return None
    target = stmt.target
    if it.func.attr == "named_parameters":
        target = target.elts[1] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None  # type: ignore[assignment]
    if not isinstance(target, ast.Name):
        return None
    body = stmt.body[0]
    if isinstance(body, ast.Assign) and len(body.targets) == 1:
        t = body.targets[0]
        if isinstance(t, ast.Attribute) and t.attr == "requires_grad" and isinstance(t.value, ast.Name) and t.value.id == target.id:
            return body.value
    if isinstance(body, ast.Expr) and isinstance(body.value, ast.Call):
        call = body.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_":
            if isinstance(call.func.value, ast.Name) and call.func.value.id == target.id:
                return _flag(call)
    return None


def _flag(call: ast.Call) -> Optional[ast.expr]:
    if len(call.args) == 1 and not call.keywords:
        return call.args[0]
    if not call.args and len(call.keywords) == 1 and call.keywords[0].arg == "requires_grad":
        return call.keywords[0].value
    return None  # ``requires_grad_()`` turns them on


def _false_defaults(init: ast.FunctionDef) -> Dict[str, int]:
    """``__init__``'s positional parameters (after ``self``) whose default is ``False``,
    with their positions; keyword-only ones at a position no call reaches."""
    args = [*init.args.posonlyargs, *init.args.args][1:]
    found: Dict[str, int] = {}
    for arg, default in zip(args[len(args) - len(init.args.defaults) :], init.args.defaults):
        if isinstance(default, ast.Constant) and default.value is False:
            found[arg.arg] = args.index(arg)
    for arg, kw_default in zip(init.args.kwonlyargs, init.args.kw_defaults):
        if isinstance(kw_default, ast.Constant) and kw_default.value is False:
            found[arg.arg] = 10**6
    return found


def _adds_parameters(stmt: ast.stmt) -> bool:
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets) and not _plain(node.value):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDS:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
            return True
    return False


def _plain(value: Optional[ast.expr]) -> bool:
    return value is None or isinstance(value, (ast.Constant, ast.Name, ast.Tuple, ast.List, ast.Dict)) and not any(
        isinstance(n, ast.Call) for n in ast.walk(value)
    )


def _unfreezes(cls: ast.ClassDef, flag: Sequence[object]) -> bool:
    """Whether some statement of ``cls`` may set ``requires_grad`` to anything but
    ``False`` or the constructor's flag."""
    allowed = {flag[0]} if flag else set()
    for node in ast.walk(cls):
        value: Optional[ast.expr] = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets):
            value = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
            value = _flag(node)
            if value is None:
                return True
        else:
            continue
        if not (isinstance(value, ast.Constant) and value.value is False or isinstance(value, ast.Name) and value.id in allowed):
            return True
    return False


def _rebinds(func: ast.FunctionDef, name: str) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and n.id == name for n in ast.walk(func))


def _is_self(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name) and expr.id == "self"


def _qualified(decorator: ast.expr, imports: Mapping[str, str]) -> str:
    expr = decorator.func if isinstance(decorator, ast.Call) else decorator
    text = ast_imports.dotted(expr) or ""
    root, _, rest = text.partition(".")
    return imports[root] + ("." + rest if rest else "") if root in imports else text
