"""What the callers in other files do with a method's results: the project index's
proof that a method returning its forward's graph is run batch after batch by
callers that use that graph nowhere.

A trainer's ``eval_step`` that switches its model to eval mode and returns the
loss hands the graph to its callers, and whether it is wanted is theirs to say.
When every call of it in the other files of the project (``x.eval_step(b)``, by
the method's name, whatever ``x`` is) is a statement of a loop, with grad mode
untouched in its function, whose results are only read as numbers (``.item()``,
``.tolist()``, printed, formatted, logged with ``add_scalar``), each iteration
builds a graph that nothing differentiates: the forward runs more than once and
its graph is wanted by nothing (issue 26).

Summaries come from Python's ``ast`` (``summarize`` in ``semantic.project``);
the facts are counts by method name, compared with the index's count of every
call of that name.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Dict, Iterator, List, Optional, Protocol, Set


class Index(Protocol):
    """What ``dropped_in_loops`` reads of ``semantic.project.Project``, which
    imports this module to summarise files (so this one may not import it)."""

    @property
    def summaries(self) -> Dict[str, Dict[str, Any]]: ...

    def root(self, path: str) -> str: ...

# Reads of a result that give a number, a list or a detached tensor: no graph goes on.
_TERMINAL = frozenset({"item", "tolist", "detach", "numpy", "shape", "dtype", "device", "size", "dim", "numel"})
# Methods of a tensor whose result is read the same way (``loss.flatten().tolist()``).
_THROUGH = frozenset({"flatten", "view", "reshape", "mean", "sum", "cpu", "squeeze", "float", "double"})
# Functions and logging methods that turn a tensor into text or a number.
_PRINTS = frozenset({"print", "float", "int", "str", "repr", "bool", "round", "format", "len"})
_LOGS = frozenset({"add_scalar", "add_scalars", "info", "debug", "warning", "error"})
# Anything that may switch grad mode: a function mentioning one is left out.
_GRAD_MODE = frozenset({"no_grad", "inference_mode", "set_grad_enabled", "enable_grad"})
# The words a method's name must hold for the index to see all of its calls: a
# file calling ``x.eval_step(...)`` is summarised whatever else it holds
# (``semantic.project``'s gate), one calling only ``x.score(...)`` may not be.
CALLED_WORDS = "eval|valid|test|predict|infer"
_CALLED = re.compile(CALLED_WORDS, re.IGNORECASE)
# A call of such a method, in a file's text (``semantic.project``'s gate holds it
# too); a module's own ``eval()``, in most files, returns the module, no result.
CALL_NAMED = rf"\.(?!eval\s*\()\w*(?:{CALLED_WORDS})\w*\s*\("
_CALLS_NAMED = re.compile(CALL_NAMED, re.IGNORECASE)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def dropped_results(tree: ast.Module, source: str) -> Dict[str, int]:
    """Method name -> how many calls ``x.name(...)`` of the file run in a loop with
    grad mode untouched and have their results used only as numbers; only for
    names holding one of ``CALLED_WORDS``, the only ones asked about."""
    if not _CALLS_NAMED.search(source):
        return {}  # most files: no walk at all
    found: Dict[str, int] = {}
    scopes: List[ast.AST] = [tree]
    while scopes:
        scope = scopes.pop()
        nodes = list(_own_nodes(scope))
        scopes += [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        candidates = [n for n in nodes if isinstance(n, (ast.Expr, ast.Assign)) and _named_call(n.value)]
        if not candidates or getattr(scope, "decorator_list", None) or any(_names_grad_mode(n) for n in nodes):
            continue  # a decorator may choose grad mode
        parents: Dict[int, ast.AST] = {}
        for node in [scope, *nodes]:
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for stmt in candidates:
            name = _dropping_call(stmt, scope, nodes, parents)
            if name is not None:
                found[name] = found.get(name, 0) + 1
    return found


def _named_call(value: ast.AST) -> bool:
    """``x.m(...)`` for a method ``m`` whose calls the index sees everywhere."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr != "eval"
        and _CALLED.search(value.func.attr) is not None
    )


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s own code, not of the functions and classes it defines."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _names_grad_mode(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id in _GRAD_MODE) or (
        isinstance(node, ast.Attribute) and node.attr in _GRAD_MODE
    )


def _dropping_call(stmt: ast.AST, scope: ast.AST, nodes: List[ast.AST], parents: Dict[int, ast.AST]) -> Optional[str]:
    """The method name of the call ``stmt`` makes, when ``stmt`` is ``x.m(...)`` or
    ``a, *_ = x.m(...)`` in a loop of ``scope`` and every read of what it binds is
    a number's (``_number_read``)."""
    if isinstance(stmt, ast.Expr):
        value, targets = stmt.value, []
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        value, targets = stmt.value, [stmt.targets[0]]
    else:
        return None
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or not _named_call(value):
        return None
    names: Set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        else:
            return None  # stored on an object or into a container: kept
    if not _in_loop(stmt, scope, parents):
        return None
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            if not (_number_read(node, parents) or _rebound_around(node, stmt, scope, parents)):
                return None
    return value.func.attr


def _in_loop(node: ast.AST, scope: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    cur = parents.get(id(node))
    while cur is not None and cur is not scope:
        if isinstance(cur, _LOOPS):
            return True
        cur = parents.get(id(cur))
    return False


def _number_read(node: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    """``node`` is read as a number or text: ``.item()``, ``.flatten().tolist()``,
    ``f"{loss:.3f}"``, ``print(loss)``, ``writer.add_scalar(tag, loss, step)``."""
    parent = parents.get(id(node))
    while isinstance(parent, ast.Attribute) and parent.value is node:
        if parent.attr in _TERMINAL:
            return True
        call = parents.get(id(parent))
        if parent.attr not in _THROUGH or not (isinstance(call, ast.Call) and call.func is parent):
            return False
        node, parent = call, parents.get(id(call))
    if isinstance(parent, ast.FormattedValue):
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        return (isinstance(func, ast.Name) and func.id in _PRINTS) or (isinstance(func, ast.Attribute) and func.attr in _LOGS)
    return False


def _rebound_around(node: ast.AST, stmt: ast.AST, scope: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    """``node`` reads the target of a ``for`` loop around it that binds the same name
    and does not hold ``stmt``: it reads what that loop binds, not ``stmt``'s result."""
    name = node.id  # type: ignore[attr-defined]
    cur = parents.get(id(node))
    while cur is not None and cur is not scope:
        if isinstance(cur, (ast.For, ast.AsyncFor)) and any(node_in(node, s) for s in cur.body):
            bound = {n.id for n in ast.walk(cur.target) if isinstance(n, ast.Name)}
            if name in bound and not any(node_in(stmt, s) for s in cur.body):
                return True
        cur = parents.get(id(cur))
    return False


def node_in(node: ast.AST, root: ast.AST) -> bool:
    return any(n is node for n in ast.walk(root))


def dropped_in_loops(project: Index, method: str, origin: str) -> bool:
    """Whether every call of ``method`` by name in the other files of ``origin``'s
    project (there is at least one) runs in a loop with grad mode untouched and
    has its results used only as numbers. Only for a name holding one of
    ``CALLED_WORDS``: the index summarises every file that calls such a method.
    """
    if not _CALLED.search(method):
        return False  # callers in files the index does not summarise would be missed
    total = dropped = 0
    root = project.root(origin)
    for path, summary in project.summaries.items():
        if path == origin or project.root(path) != root:
            continue
        counts = summary.get("calls", {}).get(method)
        if counts:
            total += counts[0]
            dropped += summary.get("dropped", {}).get(method, 0)
    return total > 0 and dropped == total
