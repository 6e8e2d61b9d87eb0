"""Conditions a fix needs before it may be offered as safe (or offered at all).

Each answers from the syntax alone and errs towards "not proven": a fix whose
conditions are not proven here is unsafe, or not offered where even an unsafe
fix would crash. The differential oracle (tests/oracle/) holds each condition
to what torch really does.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set

import libcst as cst

from gradlint.semantic.tree import walk

# Calls that cannot keep a tensor they are given (they read it, or make a number
# or a string from it): passing a value to them does not let it escape.
PLAIN_FUNCS = frozenset(
    "print len str repr int float bool round format isinstance range enumerate zip sorted min max sum abs "
    "list tuple dict set any all".split()
)
PLAIN_METHODS = frozenset(
    "item tolist numpy detach argmax argmin argsort size dim numel nelement eq ne lt le gt ge equal allclose "
    "isnan isinf isfinite long int bool byte format info debug warning".split()
)


# Names under which code reaches torch's (or numpy's) functions.
TORCH_ROOTS = frozenset({"torch", "F", "nn", "functional", "np", "numpy", "math"})


def _module_statement(ctx, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The statement of the module body that holds ``node``."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, cst.Module):
        child, parent = parent, ctx.parent(parent)
    return child if parent is not None else None


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` itself binds ``name`` (any kind of binding)."""
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            return True  # ``from x import *`` may bind it
        for alias in node.names:  # type: ignore[union-attr]
            if alias.asname is not None:
                bound = alias.asname.name
                if isinstance(bound, cst.Name) and bound.value == name:
                    return True
            else:
                head = alias.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                if isinstance(head, cst.Name) and head.value == name:
                    return True
        return False
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value == name
    if isinstance(node, cst.Param):
        return node.name.value == name
    if isinstance(node, cst.ExceptHandler):
        return isinstance(node.name, cst.AsName) and isinstance(node.name.name, cst.Name) and node.name.name.value == name
    if isinstance(node, (cst.Global, cst.Nonlocal)):
        return any(n.name.value == name for n in node.names)
    targets = []
    if isinstance(node, cst.AssignTarget):
        targets = [node.target]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, (cst.For, cst.CompFor)):
        targets = [node.target]
    elif isinstance(node, cst.NamedExpr):
        targets = [node.target]
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        targets = [node.asname.name]
    elif isinstance(node, cst.MatchAs) and node.name is not None:
        targets = [node.name]
    for t in targets:
        for sub in walk(t, into_functions=True):
            if isinstance(sub, cst.Name) and sub.value == name:
                return True
    return False


def _is_module_import(node: cst.CSTNode, name: str) -> bool:
    """``import torch`` / ``import torch as name`` (nothing else in the statement binds ``name``)."""
    if not isinstance(node, cst.Import):
        return False
    for alias in node.names:
        if alias.asname is not None:
            bound = alias.asname.name
            if isinstance(bound, cst.Name) and bound.value == name:
                return isinstance(alias.name, cst.Name) and alias.name.value == "torch"
        elif isinstance(alias.name, cst.Name) and alias.name.value == name:
            return name == "torch"
    return False


def _star_binding(ctx, node: cst.CSTNode, name: str) -> Optional[bool]:
    """For ``from M import *``: False when M is known not to bind ``name``, True when it
    binds it to the torch module (``models/__init__.py`` doing ``import torch``), else None."""
    if not (isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar)):
        return None
    bound, target = ctx.semantic.names.star_import_binds(node, name)
    if bound is False:
        return False
    return True if bound and target == "torch" else None


def torch_name_is_module(ctx, at: cst.CSTNode, name: str, adds_import: bool) -> bool:
    """Whether ``name`` is sure to be the torch module where a fix inserts ``name.no_grad()``
    at ``at`` (a decorator: evaluated where its function is defined).

    Proven only when every binding of ``name`` in the file is an unconditional
    module-level ``import torch`` (or ``import torch as name``, or a star import of
    a module of the project that binds it so; one that binds other names only does
    not count), the first of them
    comes before the module statement holding ``at`` (or the fix adds the import
    at the top), and nothing else anywhere binds it: not a class attribute, a
    parameter, an ``except ... as``, a local, a later assignment.
    """
    at_stmt = _module_statement(ctx, at)
    first_import: Optional[int] = None
    only_stars = True  # every binding accepted is a star import that binds the torch module
    body = list(ctx.module.body)
    for node in walk(ctx.module, into_functions=True):
        if not _binds(node, name):
            continue
        star = _star_binding(ctx, node, name)
        if star is False:
            continue  # a star import whose module binds other names only
        if star is True or _is_module_import(node, name):
            stmt = _module_statement(ctx, node)
            line = ctx.parent(node)
            if not (isinstance(line, cst.SimpleStatementLine) and stmt is line):
                return False  # inside an ``if``/``try``/function: maybe not bound
            index = body.index(stmt)
            first_import = index if first_import is None else min(first_import, index)
            only_stars = only_stars and star is True
            continue
        if _visible_at(ctx, node, at):
            return False
    if adds_import:
        # Inserted at the top, before every use; a star import binding the same module
        # again is harmless.
        return first_import is None or only_stars
    if first_import is None or at_stmt is None:
        return False
    return first_import < body.index(at_stmt)


def _binding_scope(ctx, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The function, lambda or class whose namespace ``node``'s binding goes to; None: the module."""
    if isinstance(node, (cst.Global,)):
        return None
    parent = ctx.parent(node)
    if isinstance(node, cst.Param):
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            parent = ctx.parent(parent)
        return parent
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
        parent = ctx.parent(parent)
    return None if isinstance(parent, cst.Module) else parent


def _visible_at(ctx, binding: cst.CSTNode, at: cst.CSTNode) -> bool:
    """Whether a binding may be what the name means at ``at`` (a decorator is evaluated
    in the scope around its function; a class's names are seen only in its own body)."""
    scope = _binding_scope(ctx, binding)
    if scope is None:
        return True
    node = at
    direct = True  # no function between ``at`` and the scope yet
    while node is not None:
        parent = ctx.parent(node)
        if parent is scope:
            if isinstance(scope, cst.ClassDef):
                return direct
            # inside the function's body, not the function itself being decorated
            return not (node is scope.params if isinstance(scope, cst.FunctionDef) else False)
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            direct = False
        node = parent
    return False


def enclosing_functions(ctx, node: cst.CSTNode) -> Iterator[cst.FunctionDef]:
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, cst.FunctionDef):
            yield parent
        parent = ctx.parent(parent)


def in_async_function(ctx, node: cst.CSTNode) -> bool:
    """Inside an ``async def`` (directly or through nested sync functions): grad mode is
    thread-local, and what such code returns goes to a coroutine whose grad mode the
    rules do not know."""
    return any(f.asynchronous is not None for f in enclosing_functions(ctx, node))


def is_generator(func: cst.FunctionDef) -> bool:
    return any(isinstance(n, (cst.Yield, cst.Await)) for n in walk(func.body))


_CATCHES_TYPE_ERROR = frozenset({"TypeError", "AttributeError", "Exception", "BaseException"})


def in_try_that_catches(ctx, node: cst.CSTNode, names=_CATCHES_TYPE_ERROR) -> bool:
    """Inside the body of a ``try`` with a bare ``except`` or one naming any of ``names``
    (or an expression it cannot read)."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.body:
            for handler in parent.handlers:
                if handler.type is None:
                    return True
                types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
                for t in types:
                    expr = t.value if isinstance(t, cst.Element) else t
                    last = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None
                    if last is None or last in names:
                        return True
        child, parent = parent, ctx.parent(parent)
    return False


def _plain_call(call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in PLAIN_FUNCS
    if isinstance(func, cst.Attribute):
        return func.attr.value in PLAIN_METHODS
    return False


def _names(node: cst.CSTNode) -> Set[str]:
    return {n.value for n in walk(node, into_functions=True) if isinstance(n, cst.Name)}


def _computes(node: cst.CSTNode) -> bool:
    """Whether ``node`` holds a call that may compute a tensor (``model(x)``)."""
    return any(isinstance(n, cst.Call) and not _plain_call(n) for n in walk(node, into_functions=True))


def _target_names(target: cst.BaseExpression) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def function_values_escape(ctx, func: cst.FunctionDef, ignore=lambda call: False) -> bool:
    """Whether anything computed in ``func`` may leave it carrying a graph: returned or
    yielded (unless through a call that makes a number or an index), raised, stored on
    an attribute, an item or a name the function does not own, handed to a call that
    may keep it (a helper, a callback, ``copy_``, a container's ``append`` on a
    parameter), or captured by a lambda or a nested function. Conservative: a value
    the body computes is taken to carry a graph unless the call producing it is plain.
    """
    params = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}
    for star in (func.params.star_arg, func.params.star_kwarg):
        if isinstance(star, cst.Param):
            params.add(star.name.value)
    local: Set[str] = set()
    for node in walk(func.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return True
        if isinstance(node, cst.AssignTarget):
            local |= _target_names(node.target)
        elif isinstance(node, (cst.For, cst.CompFor, cst.AugAssign, cst.AnnAssign)):
            local |= _target_names(node.target)
    local -= params
    plain = _plain_names(func, local)
    for node in walk(func.body, into_functions=True):
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return True
        if isinstance(node, cst.Raise) and node.exc is not None:
            return True
        if isinstance(node, (cst.Return, cst.Yield)) and node.value is not None:
            value = node.value.item if isinstance(node.value, cst.From) else node.value
            if not _plain_value(value, plain):
                return True
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for t in targets:
                if isinstance(t, (cst.Attribute, cst.Subscript)):
                    return True
                if isinstance(node, cst.AugAssign) and isinstance(t, cst.Name) and t.value not in local:
                    return True
        if isinstance(node, cst.Call) and not _plain_call(node) and not ignore(node):
            func_expr = node.func
            if isinstance(func_expr, cst.Attribute):
                receiver = func_expr.value
                # a method of a value the function made (``out.sum()``) keeps nothing outside
                if isinstance(receiver, cst.Name) and receiver.value in local:
                    continue
                if isinstance(receiver, cst.Name) and receiver.value == "self" and isinstance(func_expr.attr, cst.Name):
                    continue  # a submodule's forward, ``self.net(x)``, as GL101 reads it
                root = receiver
                while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
                    root = root.func if isinstance(root, cst.Call) else root.value
                if isinstance(root, cst.Name) and root.value in TORCH_ROOTS:
                    continue  # torch's functions keep nothing they are given
                if node.args:
                    # ``sink.append(out)``, ``buf.copy_(out)``, ``self.log(out)``
                    if any(_names(a.value) & (local | params) or _computes(a.value) for a in node.args):
                        return True
                continue
            if isinstance(func_expr, cst.Name) and func_expr.value in params:
                continue  # the model passed in: ``model(x)``
            if any(_names(a.value) & local or _computes(a.value) for a in node.args):
                return True  # a helper or a callback given a computed value
    return False


def _plain_names(func: cst.FunctionDef, local: Set[str]) -> Set[str]:
    """Locals every binding of which is a plain value (numbers, ``.item()``s, sums of
    those): ``total += loss.item()`` keeps ``total`` a Python number."""
    values: dict = {name: [] for name in local}
    for node in walk(func.body):
        pairs = []
        if isinstance(node, cst.Assign):
            for t in node.targets:
                pairs += _assigned(t.target, node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            pairs += _assigned(node.target, node.value)
        elif isinstance(node, (cst.For, cst.CompFor)):
            pairs += [(n, None) for n in _target_names(node.target)]
        for name, value in pairs:
            if name in values:
                values[name].append(value)
    plain = {name for name, vs in values.items() if vs and all(v is not None for v in vs)}
    changed = True
    while changed:
        changed = False
        for name in list(plain):
            if not all(_plain_value(v, plain) for v in values[name]):
                plain.discard(name)
                changed = True
    return plain


def _assigned(target: cst.BaseExpression, value: cst.BaseExpression):
    """(name, value) for each name ``target`` binds; the value is None where unknown."""
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if isinstance(target, (cst.Tuple, cst.List)):
        if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
            out = []
            for t, v in zip(target.elements, value.elements):
                out += _assigned(t.value, v.value) if not isinstance(t, cst.StarredElement) else [(n, None) for n in _target_names(t)]
            return out
        return [(n, None) for n in _target_names(target)]
    return []


def _plain_value(value: cst.BaseExpression, plain: Set[str] = frozenset()) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.BaseString, cst.Comparison)):
        return True
    if isinstance(value, cst.Name) and (value.value in ("None", "True", "False") or value.value in plain):
        return True
    if isinstance(value, cst.BinaryOperation):
        return _plain_value(value.left, plain) and _plain_value(value.right, plain)
    if isinstance(value, cst.UnaryOperation):
        return _plain_value(value.expression, plain)
    if isinstance(value, cst.Call):
        return _plain_call(value)
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Call):
        # ``out.max(1)[1]``: the indices of a max carry no graph
        call = value.value
        idx = value.slice[0].slice if len(value.slice) == 1 else None
        return (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value in ("max", "min", "topk", "sort")
            and isinstance(idx, cst.Index)
            and isinstance(idx.value, cst.Integer)
            and idx.value.value == "1"
        )
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(_plain_value(e.value, plain) for e in value.elements)
    # ``loss.data[0]``, ``out.data``: what `.data` gives has no autograd history
    base = value
    while isinstance(base, (cst.Subscript, cst.Attribute)):
        if isinstance(base, cst.Attribute) and base.attr.value == "data":
            return True
        base = base.value
    return False
