"""Conditions a fix needs before it may be offered as safe (or offered at all).

Each is stated in terms of the semantic model's facts (where values go:
``semantic.escape``; what ``torch`` names where code is inserted:
``semantic.names.torch_ref_at``) or of the syntax around a node, and errs
towards "not proven": a fix whose conditions are not proven is unsafe, or not
offered where even an unsafe fix would crash. The differential oracle
(tests/oracle/) holds each condition to what torch really does.
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Set

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.syntax import is_generator
from gradlint.semantic.tree import walk


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


# What entering a guard class as a context manager raises: ``TypeError`` (Python 3.11+),
# ``AttributeError: __enter__`` before.
_RAISED = (TypeError, AttributeError)


def error_may_be_caught(ctx, node: cst.CSTNode, raised=_RAISED, _depth: int = 0) -> bool:
    """Whether an error of one of the ``raised`` classes, raised at ``node``, may be
    caught rather than end the program: a ``try`` around it whose handler may catch
    it (a bare ``except``, a class it is an instance of, a tuple of such, a name bound
    to one: ``except ERRORS:``; an expression whose value is not known), a
    ``contextlib.suppress(...)`` around it, or a caller of its function that is
    inside either. A function whose callers are not all in the file (none there,
    or it is also passed around) may be called inside a handler: unknown, caught."""
    if _depth > bounds.HANDLER_LEVELS:
        return True
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.body:
            for handler in parent.handlers:
                if handler.type is None or _handler_catches(ctx, handler.type, raised, 0):
                    return True
        if isinstance(parent, cst.With):
            for item in parent.items:
                call = item.item
                if isinstance(call, cst.Call) and ctx.semantic.names.is_call_to(call, _SUPPRESS):
                    if not call.args or any(a.star or _handler_catches(ctx, a.value, raised, 0) for a in call.args):
                        return True
        child, parent = parent, ctx.parent(parent)
    if not isinstance(parent, cst.FunctionDef):
        return False  # module level (a class body runs there too)
    sites = ctx.semantic.calls.call_sites(parent)
    if not sites:
        return True  # called from where the file does not show, or passed around
    return any(error_may_be_caught(ctx, site, raised, _depth + 1) for site in sites)


_SUPPRESS = frozenset({"contextlib.suppress"})


def _handler_catches(ctx, expr: cst.BaseExpression, raised, depth: int) -> bool:
    """Whether ``except <expr>:`` may catch an instance of one of ``raised``; what is
    not known may."""
    import builtins

    if depth > bounds.HANDLER_LEVELS:
        return True
    if isinstance(expr, (cst.Tuple, cst.List)):
        return any(_handler_catches(ctx, el.value, raised, depth + 1) for el in expr.elements)
    if isinstance(expr, cst.Attribute):
        if ctx.semantic.names.refers_to(expr, frozenset({f"builtins.{expr.attr.value}"})):
            expr = expr.attr
        else:
            return True  # a class of a module the file does not show may be an alias of one
    if not isinstance(expr, cst.Name):
        return True
    visible = ctx.semantic.scopes.visible(expr.value, expr)
    for b in visible.bindings:
        if b.form == "class":
            continue  # a class of the file is a new class: a builtin error is no instance of it
        if b.kind == "assign" and b.form == "assign" and b.value is not None:
            if _handler_catches(ctx, b.value, raised, depth + 1):
                return True
            continue
        return True  # imported, a parameter, unpacked: not known
    if visible.unbound or not visible.bindings:
        builtin = getattr(builtins, expr.value, None)
        if not (isinstance(builtin, type) and issubclass(builtin, BaseException)):
            return True
        if any(issubclass(r, builtin) for r in raised):
            return True
    return False


def function_values_escape(ctx, func: cst.FunctionDef) -> bool:
    """Whether anything computed in ``func`` may leave it carrying a graph (returned,
    yielded, raised, stored outside, handed to a callee that may keep it, captured):
    then a guard around the whole function decides for code it cannot see."""
    return bool(ctx.semantic.escape.leaving(func))


# -- what a grad guard changes besides the graph --------------------------------------

# Tensor methods that raise on a tensor that does not require grad, which is what
# every forward output is under ``no_grad``/``inference_mode``.
_NEEDS_GRAD_MODE = frozenset({"register_hook", "retain_grad"})
# Module hooks: their code runs inside the forward, where the file does not show it.
_MODULE_HOOKS = frozenset(
    "register_forward_hook register_forward_pre_hook register_full_backward_hook "
    "register_full_backward_pre_hook register_backward_hook register_module_forward_hook "
    "register_module_forward_pre_hook register_module_full_backward_hook".split()
)


def guard_changes_more_than_graph(ctx) -> bool:
    """Whether putting code of this file under ``no_grad`` / ``inference_mode`` may change
    more than the graph: a ``register_hook`` / ``retain_grad`` call (it raises on the
    outputs of a forward run under a guard) or a module hook (whose code may make one);
    a module of the catalog's ``no_grad_changes`` (eval-mode numbers differ under a
    guard). Read over the whole file: a module class or hook of the file runs inside
    any forward. What a model built elsewhere holds (a parameter, ``torch.hub.load``)
    is not shown, as for every fact the rules read off one file."""
    cache = ctx.semantic.__dict__
    if "_guard_sensitive" not in cache:
        cache["_guard_sensitive"] = _guard_sensitive(ctx)
    return cache["_guard_sensitive"]


def _guard_sensitive(ctx) -> bool:
    from gradlint.catalog import no_grad_changes

    source = ctx.semantic.source
    sensitive = no_grad_changes()
    short = {q.rsplit(".", 1)[1] for q in sensitive}
    words = _NEEDS_GRAD_MODE | _MODULE_HOOKS | short
    if not any(w in source for w in words):
        return False
    names = ctx.semantic.names
    for node in walk(ctx.module, into_functions=True):
        if isinstance(node, cst.Attribute):
            attr = node.attr.value
            if attr in _NEEDS_GRAD_MODE or attr in _MODULE_HOOKS:
                return True
            if attr in short and names.refers_to(node, sensitive):
                return True
        elif isinstance(node, cst.Name) and node.value in short and names.refers_to(node, sensitive):
            return True
    return False


# -- where an inference tensor would go ------------------------------------------------

# Uses of a value that give a plain Python value or only print it: an inference
# tensor read this way meets neither autograd nor an in-place edit.
_PLAIN_CALLS = frozenset({"print", "float", "int", "bool", "str", "len", "round", "format", "repr"})
_PLAIN_METHODS = frozenset({"item", "tolist"})


def grad_guard(ctx, scope: cst.CSTNode, wrapped: Optional[Sequence[cst.CSTNode]]) -> str:
    """The guard a fix writes: the configured ``fix-grad-guard``, except that
    ``inference_mode`` is written only where what the guarded code computes provably
    never meets autograd or an in-place edit after the guard (``wrapped``: the
    statements a ``with`` goes around; None: the function ``scope`` gets a decorator);
    elsewhere ``no_grad``, which differs from it in nothing else the fix relies on."""
    guard = ctx.options.fix_grad_guard
    if guard != "inference_mode":
        return guard
    proven = _decorated_results_stay(ctx, scope) if wrapped is None else _wrapped_results_stay(ctx, scope, wrapped)
    return guard if proven else "no_grad"


def _decorated_results_stay(ctx, func: cst.CSTNode) -> bool:
    """The whole function runs under the guard: what it returns is the only way out
    (``function_values_escape`` covers the others), and must be proven no tensor."""
    if not isinstance(func, cst.FunctionDef) or is_generator(func) or function_values_escape(ctx, func):
        return False
    values = ctx.semantic.values
    for node in walk(func.body):
        if isinstance(node, cst.Return) and node.value is not None and not values.value(node.value).not_tensor:
            return False
    return True


def _wrapped_results_stay(ctx, scope: cst.CSTNode, wrapped: Sequence[cst.CSTNode]) -> bool:
    """Every name the wrapped statements bind or fill (``preds.append(...)``,
    ``acc[i] = ...``) is read after them only as a plain value (printed, ``float``,
    ``.item()``...), and they store nothing on an attribute or item of anything else."""
    touched: Set[str] = set()
    inside: Set[int] = set()
    for stmt in wrapped:
        for node in walk(stmt, into_functions=True):
            inside.add(id(node))
            if isinstance(node, (cst.Return, cst.Yield, cst.Raise, cst.Global, cst.Nonlocal)):
                return False
            targets: List[cst.BaseExpression] = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
                targets = [node.target]
            elif isinstance(node, cst.WithItem) and node.asname is not None:
                targets = [node.asname.name]
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                base = node.func.value
                while isinstance(base, (cst.Attribute, cst.Subscript)):
                    base = base.value  # a method of a call's result edits no name
                if (
                    isinstance(base, cst.Name)
                    and node.func.attr.value not in _PLAIN_METHODS
                    and not ctx.semantic.names.is_imported(base)  # ``torch.cat``, ``np.mean``
                ):
                    touched.add(base.value)  # ``preds.append(out)``, ``self.kept.append(out)`` may keep a result
            for target in targets:
                for t in walk(target):
                    if isinstance(t, cst.Name):
                        touched.add(t.value)
                if isinstance(target, (cst.Attribute, cst.Subscript)):
                    root: cst.BaseExpression = target
                    while isinstance(root, (cst.Attribute, cst.Subscript)):
                        root = root.value
                    if not isinstance(root, cst.Name):
                        return False
                    touched.add(root.value)
    if isinstance(scope, cst.FunctionDef):
        # a parameter or a global filled under the guard hands its results to code not shown
        info = ctx.semantic.scopes.scope(scope)
        for name in touched:
            binds = info.bindings.get(name, []) if info is not None else []
            if info is None or not info.is_local(name) or any(b.form == "param" for b in binds):
                return False
    for node in walk(scope, into_functions=True):
        if id(node) in inside or not isinstance(node, cst.Name) or node.value not in touched:
            continue
        if not _plain_use(ctx, node):
            return False
    return True


def _plain_use(ctx, name: cst.Name) -> bool:
    parent = ctx.parent(name)
    if isinstance(parent, cst.AssignTarget) and parent.target is name:
        return True  # rebound: the old value is not read here
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias)):
        return True  # a definition of another thing by that name
    if isinstance(parent, cst.Attribute) and parent.value is name:
        holder = ctx.parent(parent)
        return parent.attr.value in _PLAIN_METHODS and isinstance(holder, cst.Call) and holder.func is parent
    if isinstance(parent, cst.FormattedStringExpression):
        return True
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _PLAIN_CALLS
    return False


# -- what a call may do to grad mode ------------------------------------------------------

_ENABLING = frozenset({"set_grad_enabled", "enable_grad", "_set_grad_enabled"})


def call_may_enable_grad(ctx, call: cst.Call, _depth: int = 0, _seen: Optional[Set[int]] = None) -> bool:
    """Whether ``call`` may switch gradients on for the code after it: the function,
    method or module ``forward`` of the file it runs names ``set_grad_enabled`` or
    ``enable_grad`` (a ``set_grad_enabled(True)`` statement outlives the call), also
    through what it calls; a function imported from the project itself (a relative
    import), whose code this file does not show, may; a callee that is not
    callable code (an expression) may too. Calls of libraries do not."""
    seen = set() if _seen is None else _seen
    if _depth > bounds.RETURN_LEVELS:
        return True
    func = call.func
    if not isinstance(func, (cst.Name, cst.Attribute, cst.Call)):
        return True  # ``handlers[k](x)``, ``(f or g)(x)``: not known
    sem = ctx.semantic
    if isinstance(func, cst.Name) and _relative_import(ctx, func):
        return True
    bodies = []
    if isinstance(func, cst.Call):  # ``Net()(x)``: the forward of what the call builds
        forward = sem.modules.forward_method(func)
        if forward is None:
            return True
        bodies.append(forward)
    else:
        local = sem.calls.local_function(call)
        if local is not None:
            bodies.append(local)
        forward = sem.modules.forward_method(func)
        if forward is not None:
            bodies.append(forward)
        method = sem.modules.method_forward(call)
        if method is not None:
            bodies.append(method)
    for body in bodies:
        if id(body) in seen:
            continue
        seen.add(id(body))
        for n in walk(body.body):
            if isinstance(n, (cst.Name, cst.Attribute)) and _last(n) in _ENABLING:
                return True
            if isinstance(n, cst.Call) and call_may_enable_grad(ctx, n, _depth + 1, seen):
                return True
    return False


def _last(node: cst.CSTNode) -> Optional[str]:
    return node.value if isinstance(node, cst.Name) else node.attr.value if isinstance(node, cst.Attribute) else None


def _relative_import(ctx, name: cst.Name) -> bool:
    for b in ctx.semantic.scopes.visible(name.value, name).bindings:
        if b.form == "import" and isinstance(b.node, cst.ImportFrom) and b.node.relative:
            return True
    return False
