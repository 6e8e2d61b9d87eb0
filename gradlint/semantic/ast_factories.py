"""Module-level functions that build and return a model: the project index's proof
that ``model = create_model(opt)`` (or ``load_bert(path)``) of another file holds an
``nn.Module``, read with ``ast`` for the file summaries.

A function is a factory when every ``return`` hands back a constructor call
(``return UNet(cfg)``), possibly moved or switched (``Net().to(device).eval()``), or a
local name every assignment of which is such a call (``model = fsModel();
model.initialize(opt); return model``), wrapping included (``model =
DataParallel(model)``). The summary keeps, per factory, the qualified names of the
classes it may build; whether each is a module is the index's question
(``Project.factory_returns_module``), as its class may live in a third file.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, Iterator, List, Optional, Set

# Methods that hand back the module they are called on (``.to(device)``, ``.eval()``).
_SELF_RETURNING = frozenset({"to", "cuda", "cpu", "eval", "train", "float", "half", "double", "bfloat16", "requires_grad_", "share_memory"})


def factories(tree: ast.Module, qualify: Callable[[ast.expr], Optional[str]]) -> Dict[str, List[str]]:
    """The summary's ``factories`` entry: function name -> classes it may build."""
    found: Dict[str, List[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            built = _built(node, qualify)
            if built:
                found[node.name] = sorted(built)
    return found


def _own_nodes(func: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of ``func``'s body, not those of functions or classes defined in it."""
    stack: List[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def _built(func: ast.FunctionDef, qualify: Callable[[ast.expr], Optional[str]]) -> Optional[Set[str]]:
    nodes = list(_own_nodes(func))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes):
        return None
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    if not returns:
        return None
    assigned: Dict[str, List[Optional[ast.expr]]] = {}
    for n in nodes:
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    assigned.setdefault(t.id, []).append(n.value)
                elif isinstance(t, (ast.Tuple, ast.List, ast.Starred)):
                    for e in ast.walk(t):
                        if isinstance(e, ast.Name):
                            assigned.setdefault(e.id, []).append(None)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)) and isinstance(n.target, ast.Name):
            assigned.setdefault(n.target.id, []).append(None)
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            for item in n.items:
                if isinstance(item.optional_vars, ast.Name):
                    assigned.setdefault(item.optional_vars.id, []).append(None)
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    found: Set[str] = set()
    for r in returns:
        classes = _classes(r.value, assigned, params, qualify, set())
        if classes is None:
            return None
        found |= classes
    return found


def _classes(
    expr: Optional[ast.expr],
    assigned: Dict[str, List[Optional[ast.expr]]],
    params: Set[str],
    qualify: Callable[[ast.expr], Optional[str]],
    seen: Set[str],
) -> Optional[Set[str]]:
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SELF_RETURNING:
        expr = expr.func.value
    if isinstance(expr, ast.Call):
        name = qualify(expr.func)
        return {name} if name else None
    if isinstance(expr, ast.Name) and expr.id not in params and expr.id not in seen and expr.id in assigned:
        found: Set[str] = set()
        for value in assigned[expr.id]:
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Name) and value.args[0].id == expr.id:
                name = qualify(value.func)  # ``model = DataParallel(model)``: a wrapper, itself a module or not
                if not name:
                    return None
                found.add(name)
                continue
            classes = _classes(value, assigned, params, qualify, seen | {expr.id})
            if classes is None:
                return None
            found |= classes
        return found
    return None
