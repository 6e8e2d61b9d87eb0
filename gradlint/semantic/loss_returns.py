"""Classes whose call returns a 0-dim tensor: the project index's proof that
``criterion = IoULoss()``, a class of another file, gives a 0-dim loss, as
``Kinds`` proves it for a class of the same file by reading its ``forward``.

A summary records, for each module-level class of a file, the method its call
runs (``__call__`` where the class defines one, else ``forward``, which runs
only for an ``nn.Module``, as the index decides from the bases) when every
``return`` of that method returns a value that is 0-dim by torch's shape rules
alone: a reduction over everything (``x.sum()``, ``(a * b).mean()``), such a
value combined by ``+ - * /`` with another or with a Python number
(``n - iou``, ``loss / x.size(0)``, ``len(batch)``), or a local name every
assignment of which is one of those (a name assigned from itself, ``loss =
loss / n``, adds nothing to what its other assignments give). Anything else
(a call of another function, an attribute, a name bound another way, a method
that reshapes in place) proves nothing, and the class is left out.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set

from gradlint.semantic.eval_returns import own_nodes
from gradlint.semantic.torch_api import ZERO_DIM_REDUCTIONS

# Methods of a tensor or a size that give a Python int.
_INT_METHODS = frozenset({"size", "numel", "dim", "nelement"})


def summary_entry(tree: ast.Module) -> Dict[str, Dict[str, str]]:
    """The summary's ``zero_dim_calls`` entry (class -> the method its call runs),
    left out when empty."""
    found: Dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            methods = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            name = "__call__" if "__call__" in methods else "forward"
            method = methods.get(name)
            if isinstance(method, ast.FunctionDef) and returns_zero_dim(method):
                found[node.name] = name
    return {"zero_dim_calls": found} if found else {}


def valid(entry: object) -> bool:
    """Whether ``entry`` (read back from a cache) has the shape ``summary_entry`` gives."""
    return isinstance(entry, dict) and all(isinstance(k, str) and v in ("__call__", "forward") for k, v in entry.items())


def returns_zero_dim(func: ast.FunctionDef) -> bool:
    """Whether every ``return`` of ``func`` returns a 0-dim value (see the module's docstring)."""
    own = own_nodes(func.body)
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for n in own):
        return False
    returns = [n for n in own if isinstance(n, ast.Return)]
    if not returns or any(r.value is None for r in returns):
        return False
    bindings = _bindings(func, own)
    if bindings is None:
        return False
    return all(_zero_dim(r.value, bindings, set()) for r in returns if r.value is not None)


def _bindings(func: ast.FunctionDef, own: List[ast.AST]) -> Optional[Dict[str, List[ast.expr]]]:
    """Each local name's assigned values (``x op= v`` as ``x op v``); a name bound any
    other way (a parameter, a loop or ``with`` target, unpacking, a walrus, an import,
    ``del``) or reshaped in place (``x.unsqueeze_(0)``) maps to an empty list, which
    proves nothing. None where a nested function or class may rebind a local."""
    values: Dict[str, List[ast.expr]] = {}
    recorded: Set[int] = set()  # the target names whose assigned values are in ``values``
    other: Set[str] = set()
    args = func.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            other.add(a.arg)
    for node in own:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            for t in node.targets:
                values.setdefault(t.id, []).append(node.value)  # type: ignore[attr-defined]
                recorded.add(id(t))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            values.setdefault(node.target.id, []).append(ast.BinOp(node.target, node.op, node.value))
            recorded.add(id(node.target))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            other.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            other.add(node.name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            attr = node.func.attr
            if attr.endswith("_") and not attr.startswith("_"):
                other.add(node.func.value.id)  # ``loss.unsqueeze_(0)``, ``x.resize_(n)``
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
    # Any other binding (unpacking, a loop, ``with ... as``, a walrus, ``del``, an
    # assignment with other targets too, another augmented operator) is a stored
    # name whose value was not recorded above.
    poisoned = set(other)
    for node in own:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in recorded:
            poisoned.add(node.id)
    return {name: ([] if name in poisoned else found) for name, found in values.items()} | {name: [] for name in poisoned}


def _zero_dim(expr: ast.expr, bindings: Dict[str, List[ast.expr]], seen: Set[str]) -> bool:
    if isinstance(expr, ast.Call):
        func = expr.func
        return isinstance(func, ast.Attribute) and func.attr in ZERO_DIM_REDUCTIONS and not expr.args and not expr.keywords
    if isinstance(expr, ast.Name):
        if expr.id in seen:
            return True  # ``loss = loss / n``: what its other assignments give
        values = bindings.get(expr.id)
        if not values:
            return False
        seen = seen | {expr.id}
        return all(_zero_dim(v, bindings, seen) for v in values)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        left, right = expr.left, expr.right
        return (_zero_dim(left, bindings, seen) and (_zero_dim(right, bindings, seen) or _number(right))) or (
            _number(left) and _zero_dim(right, bindings, seen)
        )
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _zero_dim(expr.operand, bindings, seen)
    return False


def _number(expr: ast.expr) -> bool:
    """A Python number by its form: a literal, ``len(...)``, ``x.size(0)``, ``x.numel()``,
    ``x.shape[0]``, or arithmetic of those."""
    if isinstance(expr, ast.Constant):
        return type(expr.value) in (int, float)
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name):
            return func.id == "len" and len(expr.args) == 1 and not expr.keywords
        if isinstance(func, ast.Attribute) and func.attr in _INT_METHODS and not expr.keywords:
            return func.attr != "size" or (len(expr.args) == 1 and isinstance(expr.args[0], ast.Constant) and type(expr.args[0].value) is int)
        return False
    if isinstance(expr, ast.Subscript):
        return isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape" and isinstance(expr.slice, ast.Constant) and type(expr.slice.value) is int
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv)):
        return _number(expr.left) and _number(expr.right)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _number(expr.operand)
    return False
