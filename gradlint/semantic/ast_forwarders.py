"""The reading of a class that the forwarding facts need (``semantic.forwarders``),
from Python's ``ast`` only, so that the project index (``semantic.project``)
records it for the classes of other files without loading LibCST, and the
semantic model asks the same of a class of its own file.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

# Names whose mention in the calling method may change grad mode or the module's
# mode, or compute gradients: the wrapper's call is then not the module's forward
# as the caller runs it.
_MODE_WORDS = frozenset(
    {"no_grad", "inference_mode", "set_grad_enabled", "enable_grad", "backward", "grad", "train", "eval", "requires_grad_"}
)


def forwarded_parameter(cls: ast.ClassDef) -> Optional[List[object]]:
    """[position, name, method] when ``cls`` forwards to the module it is given:
    ``__init__``'s parameter ``name`` (``position`` counted after ``self``) is kept
    as ``self.<attr>`` by a statement of ``__init__``'s own body, nothing else in
    the class assigns that attribute or the parameter, and ``method``
    (``forward``, else ``__call__``), undecorated, calls ``self.<attr>(...)`` or
    ``self.<attr>.forward(...)`` and mentions nothing that changes grad mode or
    a module's mode. None otherwise."""
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
    init = methods.get("__init__")
    if init is None:
        return None
    params = [a.arg for a in init.args.posonlyargs + init.args.args]
    if len(params) < 2:
        return None
    stores = {}  # attr -> (parameter, the statement that keeps it)
    for stmt in init.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id in params[1:]
        ):
            attr = _attribute_of(stmt.targets[0], params[0])
            if attr is not None:
                stores[attr] = (stmt.value.id, stmt)
    rebound = set()
    for method in methods.values():
        me = _instance_name(method)
        for node in ast.walk(method):
            for target in _assigned(node):
                attr = _attribute_of(target, me)
                if attr in stores and node is not stores[attr][1]:
                    rebound.add(attr)  # kept, then replaced: may be another object
                if method is init and isinstance(target, ast.Name):
                    rebound |= {a for a, (p, _) in stores.items() if p == target.id}
    kept = {a: p for a, (p, _) in stores.items() if a not in rebound}
    called = _called_method(methods)
    if called is None:
        return None
    name, attrs = called
    runs = {a for a in kept if a in attrs}
    if len(runs) != 1:
        return None
    param = kept[runs.pop()]
    return [params.index(param) - 1, param, name]


def forwarded_attributes(cls: ast.ClassDef) -> Optional[List[object]]:
    """[attributes, method]: the attributes that ``method`` (``forward``, else
    ``__call__``), undecorated and mentioning nothing that changes grad mode or a
    module's mode, runs (``self.net(x)``, ``self.net.forward(x)``). None when it
    runs none or is not read so."""
    called = _called_method({s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)})
    if called is None or not called[1]:
        return None
    return [sorted(set(called[1])), called[0]]


def _called_method(methods: Dict[str, ast.FunctionDef]) -> Optional[Tuple[str, List[str]]]:
    """(name, the attributes it runs) of the method a call of an instance runs:
    ``forward`` (for an ``nn.Module``), else ``__call__``; None when it is
    decorated or mentions what may change grad mode or a module's mode."""
    for name in ("forward", "__call__"):
        method = methods.get(name)
        if method is None:
            continue
        me = _instance_name(method)
        if method.decorator_list or me is None or _mentions_mode(method):
            return None
        return name, _called_attributes(method, me)
    return None


def _instance_name(method: ast.FunctionDef) -> Optional[str]:
    args = method.args.posonlyargs + method.args.args
    return args[0].arg if args else None


def _attribute_of(target: ast.AST, me: Optional[str]) -> Optional[str]:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
        return target.attr
    return None


def _assigned(node: ast.AST) -> List[ast.AST]:
    if isinstance(node, ast.Assign):
        out: List[ast.AST] = []
        for t in node.targets:
            out += list(ast.walk(t)) if isinstance(t, (ast.Tuple, ast.List)) else [t]
        return out
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    if isinstance(node, (ast.For, ast.With, ast.NamedExpr)):
        targets = [node.target] if not isinstance(node, ast.With) else [i.optional_vars for i in node.items if i.optional_vars]
        return [n for t in targets for n in ast.walk(t)]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    return []


def _mentions_mode(method: ast.FunctionDef) -> bool:
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id in _MODE_WORDS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _MODE_WORDS:
            return True
    return False


def _called_attributes(method: ast.FunctionDef, me: str) -> List[str]:
    """``a`` for each ``self.a(...)`` or ``self.a.forward(...)`` in ``method``."""
    out = []
    for node in ast.walk(method):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "forward":
            func = func.value
        attr = _attribute_of(func, me)
        if attr is not None:
            out.append(attr)
    return out
