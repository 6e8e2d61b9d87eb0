"""``volatile=True`` where no function can be decorated: a ``with torch.no_grad():`` region.

In PyTorch 0.3 volatility propagated: everything computed from a volatile
``Variable`` was volatile, and recorded no graph. GL001's fix restores that by
decorating the enclosing function with ``@torch.no_grad()``, which it cannot
do at module level (scripts, notebooks) nor in a function that also trains,
itself or through a function or method of the file it calls on values not
computed from the volatile input.
There, ``gradlint migrate`` does what the PyTorch 0.4 migration did by hand:
it puts ``with torch.no_grad():`` around the statements the volatile value
flows into, when they can be delimited inside one block, and drops the flag
(the ``Variable(x)`` wrapper left is GL002's to remove).

The region starts at the statement holding ``Variable(x, volatile=True)`` and
ends at the last statement of the same block that reads a name the value
reached (the names each statement assigns from it are followed in order). It
is refused when a name bound inside it is read after it (the value, or
something computed from it, leaves the block), when it assigns the value to an
attribute or an item of something else (storing into the value itself,
``input.data = input.data.cuda()``, keeps it where it was), when a statement
between that does not read the value runs a forward, a loss or a function of
the file (it recorded a graph in 0.3 too), or when it may train
(``calls.may_train``: ``backward()``, an optimizer's ``step()``) or yields. A refused call is left
as it is, for a human, with GL001's finding.

A flag that is a parameter of a function of the file (``def get_batch(source,
i, evaluation=False): ... Variable(..., volatile=evaluation)``) is known at
each call site when the file is a program (a ``__main__`` block, or a loop or
call of its own functions among the statements that run at import, also inside
``try``, ``with`` and ``if``), every call of the function in the file passes a
constant (or leaves the default) and the function is used no other way: the flag is
dropped in the function, and each call that passes the volatile value gets
the region above, starting at the statement that holds the call (the call,
and what its result flows into, then run under ``no_grad``), which is what
the 0.4 migration of the word-language-model example did by hand. If one
such region cannot be delimited, or no call is seen, nothing changes and
GL001's finding stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, cast

import libcst as cst

from gradlint import codegen
from gradlint.rule import FileContext
from gradlint.semantic.derivation import not_derived_leaving, not_derived_training, volatile_inputs
from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.torch_api import NO_GRAPH_ATTRIBUTES, NO_GRAPH_METHODS, PYTHON_VALUE_FUNCS, VARIABLE
from gradlint.semantic.tree import walk


@dataclass
class _Region:
    block: cst.CSTNode  # the IndentedBlock or Module whose statements it spans
    start: int
    end: int  # inclusive
    calls: List[Tuple[cst.Call, cst.Arg]]  # the volatile calls inside it, and their flags
    torch_name: str
    needs_import: bool


def rewrite(source: str, path: str = "<string>") -> Tuple[str, int]:
    """``source`` with the volatile regions guarded, and how many ``volatile=True``
    flags that removed; nothing else is changed. A source LibCST does not parse
    is returned as it is: the lint that follows says why."""
    if "volatile" not in source:
        return source, 0
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source, 0
    ctx = FileContext(path, source, module)
    regions, refused = _regions(ctx)
    dropped: List[Tuple[cst.Call, cst.Arg]] = []
    for call, flag in refused:
        uses = _use_regions(ctx, call)
        if uses is None:
            continue
        dropped.append((call, flag))
        for use in uses:
            region = _merge(ctx, regions, use)
            if region is not None:
                regions.append(region)
    for call, flag, sites in _resolved_flags(ctx):
        if any(_inside(ctx, r, call) for r in regions):
            continue  # already under a region of its own
        dropped.append((call, flag))
        for site in sites:
            region = _merge(ctx, regions, site)
            if region is not None:
                regions.append(region)
    if not regions and not dropped:
        return source, 0
    regions = _outermost(ctx, regions)
    new = module.visit(_Apply(regions, dropped))
    if any(r.needs_import for r in regions):
        new = _with_torch_import(new)
    return new.code, sum(len(r.calls) for r in regions) + len(dropped)


def _merge(ctx: FileContext, regions: List[_Region], region: _Region) -> Optional[_Region]:
    """``region`` to add, or None when it was merged into one of ``regions``."""
    node = region.block.body[region.start]  # type: ignore[attr-defined]
    for r in regions:
        if r.block is region.block and r.start <= region.end and region.start <= r.end:
            r.start, r.end = min(r.start, region.start), max(r.end, region.end)
            return None
        if _inside(ctx, r, node):
            return None
    return region


def _resolved_flags(ctx: FileContext) -> List[Tuple[cst.Call, cst.Arg, List[_Region]]]:
    """``Variable(x, volatile=p)`` (or ``volatile=not p``) where ``p`` is a parameter of
    a function of the file whose every call passes a constant for it (or leaves its
    constant default): the call, its flag, and a region for each call that passes
    the volatile value. Calls already under no_grad need none. Empty when one of
    those regions cannot be delimited."""
    sem = ctx.semantic
    found: List[Tuple[cst.Call, cst.Arg, List[_Region]]] = []
    if not _is_program(ctx):
        return found  # a module others import: its callers are not all in this file
    for call, flag in _volatile_calls(ctx):
        if bool_value(flag.value) is not None:
            continue
        expr, negated = flag.value, False
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            expr, negated = expr.expression, True
        if not isinstance(expr, cst.Name) or sem.tree.enclosing(call, (cst.Lambda,)) is not None:
            continue
        param = _parameter(ctx, expr)
        if param is None:
            continue
        values = _passed(ctx, param)
        if not values:
            continue
        sites = []
        for site, value in values:
            if value == negated or sem.gradmode.grad_disabled(site) is True:
                continue  # not volatile there, or gradients already off
            if sem.tree.enclosing(site, (cst.Lambda,)) is not None:
                break
            region = _region(ctx, site, None)
            if region is None or _returns(region):
                break  # a returned value would be used outside the region
            region.calls = []
            sites.append(region)
        else:
            found.append((call, flag, sites))
    return found


def _is_program(ctx: FileContext) -> bool:
    """Whether the file runs as a program rather than being imported for its
    functions: a ``__main__`` block, or a module-level loop or expression statement
    that calls one of its own functions (a 0.3-era training script's ``for epoch in
    ...: train(); evaluate()``)."""
    sem = ctx.semantic
    if sem.calls.main_block() is not None:
        return True
    runs: cst.CSTNode
    for stmt in _module_level(ctx.module.body):
        if isinstance(stmt, (cst.For, cst.While)):
            runs = stmt
        elif isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(small, cst.Expr) for small in stmt.body):
            runs = stmt
        else:
            continue
        if any(isinstance(n, cst.Call) and sem.calls.local_function(n) is not None for n in walk(runs, into_functions=False)):
            return True
    return False


def _module_level(body: Sequence[cst.BaseStatement]) -> Iterator[cst.BaseStatement]:
    """The statements that run when the module is: ``body`` and, through the
    ``try``, ``with`` and ``if`` around them (a script's epoch loop inside ``try:
    ... except KeyboardInterrupt:``), the statements those hold."""
    for stmt in body:
        yield stmt
        suites: List[Optional[cst.BaseSuite]] = []
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            suites = [stmt.body, *(h.body for h in stmt.handlers)]
            suites += [part.body if part is not None else None for part in (stmt.orelse, stmt.finalbody)]
        elif isinstance(stmt, cst.With):
            suites = [stmt.body]
        elif isinstance(stmt, cst.If):
            branch: Optional[cst.CSTNode] = stmt
            while isinstance(branch, cst.If):  # ``elif`` chains
                suites.append(branch.body)
                branch = branch.orelse
            if isinstance(branch, cst.Else):
                suites.append(branch.body)
        for suite in suites:
            if isinstance(suite, cst.IndentedBlock):
                yield from _module_level(suite.body)


def _returns(region: _Region) -> bool:
    body = region.block.body  # type: ignore[attr-defined]
    return any(isinstance(n, cst.Return) for stmt in body[region.start : region.end + 1] for n in walk(stmt, into_functions=False))


def _parameter(ctx: FileContext, name: cst.Name) -> Optional[cst.Param]:
    """The parameter of the enclosing function that every binding reaching ``name`` is."""
    reaching = ctx.semantic.scopes.reaching(name)
    if reaching.unbound or len(reaching.bindings) != 1 or reaching.bindings[0].form != "param":
        return None
    param = reaching.bindings[0].node
    func = ctx.semantic.tree.enclosing_function(name)
    params = ctx.parent(param) if isinstance(param, cst.Param) else None
    if not isinstance(param, cst.Param) or func is None or params is None or ctx.parent(params) is not func:
        return None
    return param


def _passed(ctx: FileContext, param: cst.Param) -> List[Tuple[cst.Call, bool]]:
    """Each call of ``param``'s function in the file with the flag it passes; empty
    when a call passes something other than a constant (or may pass it through
    ``*args``/``**kwargs``), when the function is used some other way, or when
    nothing calls it."""
    calls = ctx.semantic.calls
    params = ctx.parent(param)
    func = ctx.parent(params) if params is not None else None
    if not isinstance(func, cst.FunctionDef) or ctx.semantic.tree.method_class(func) is not None:
        return []
    sites = calls.call_sites(func)
    passed = calls.arguments_for(param)
    if not sites or passed is None or any(a.star for site in sites for a in site.args):
        return []
    given = {id(site): bool_value(value) for site, value in passed}
    default = bool_value(param.default) if param.default is not None else None
    out = []
    for site in sites:
        value = given.get(id(site), default)
        if value is None:
            return []
        out.append((site, value))
    return out


def _volatile_calls(ctx: FileContext) -> Iterator[Tuple[cst.Call, cst.Arg]]:
    """Each ``Variable(..., volatile=<flag>)`` of the file (no ``*args``/``**kwargs``), with its flag."""
    names = ctx.semantic.names
    for call in walk(ctx.module, into_functions=True):
        if not isinstance(call, cst.Call) or not names.is_call_to(call, VARIABLE):
            continue
        flag = call_arg(call, 2, "volatile")
        if flag is not None and not any(a.star for a in call.args):
            yield call, flag


def _regions(ctx: FileContext) -> Tuple[List[_Region], List[Tuple[cst.Call, cst.Arg]]]:
    """The regions around the ``volatile=True`` calls that need one, and the calls
    whose value's statements could not be delimited from the call on."""
    sem = ctx.semantic
    found: List[_Region] = []
    refused: List[Tuple[cst.Call, cst.Arg]] = []
    for call, flag in _volatile_calls(ctx):
        if bool_value(flag.value) is not True:
            continue
        func = sem.tree.enclosing_function(call)
        seeds = (volatile_inputs(sem, func) or [call]) if func is not None else []
        if (
            func is not None
            and (func.asynchronous is not None or not sem.gradmode.needs_gradients(func))
            and not not_derived_leaving(sem, func, seeds)
            and not not_derived_training(sem, func, seeds)
        ):
            continue  # GL001's fix decorates the function (nothing else it returns keeps a graph, nothing else trains)
        if sem.gradmode.grad_disabled(call) is True:
            continue  # already under no_grad: GL001 removes the wrapper
        if sem.tree.enclosing(call, (cst.Lambda,)) is not None:
            continue  # runs when called, outside any region around its definition
        region = _region(ctx, call, flag)
        if region is None:
            refused.append((call, flag))
            continue
        merged = next((r for r in found if r.block is region.block and r.start <= region.end and region.start <= r.end), None)
        if merged is not None:
            merged.start, merged.end = min(merged.start, region.start), max(merged.end, region.end)
            merged.calls.extend(region.calls)
        else:
            outer = next((r for r in found if _inside(ctx, r, call)), None)
            if outer is not None:
                outer.calls.extend(region.calls)  # one `with` around both is enough
            else:
                found.append(region)
    return _outermost(ctx, found), refused


def _outermost(ctx: FileContext, regions: List[_Region]) -> List[_Region]:
    """``regions`` less those inside another (a region found first may lie inside one
    found later: a loop inside a guarded block); the outer one takes their calls."""
    kept = []
    for r in regions:
        outer = next((o for o in regions if o is not r and _inside(ctx, o, r.block)), None)
        if outer is None:
            kept.append(r)
        else:
            outer.calls.extend(r.calls)
    return kept


def _use_regions(ctx: FileContext, call: cst.Call) -> Optional[List[_Region]]:
    """``test_x = Variable(x, volatile=True)`` held in names and used later in other
    blocks (a script's test set, evaluated inside the training loop): a region at
    each use, from the statement holding it on, except where only what has no
    history is read (``test_x.data.numpy()``). The assignment itself needs none
    when it records nothing. None when one of them cannot be delimited, when a
    read may also see another binding of the names, or when another function
    reads them."""
    sem = ctx.semantic
    stmt = sem.tree.enclosing_statement(call)
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return None
    names = _assigned(stmt, set())
    if not names or not _only_wraps(ctx, stmt):
        return None
    volatile = frozenset(names)
    scope = sem.tree.function_scope(stmt)
    root = scope if isinstance(scope, cst.Module) else scope.body
    regions: List[_Region] = []
    for node in walk(root, into_functions=True):
        if not isinstance(node, cst.Name) or node.value not in volatile or ctx.tree.is_inside(stmt, node):
            continue
        if not sem.scopes.is_read(node):
            continue
        reaching = sem.scopes.reaching(node)
        ours = [b for b in reaching.bindings if b.node is not None and ctx.tree.is_inside(stmt, b.node)]
        if sem.tree.function_scope(node) is not scope:
            if reaching.unbound and not reaching.bindings and not _reads_no_graph(ctx, node):
                return None  # a function reads the value: its calls are not followed
            continue
        if not ours:
            continue  # another binding of the name
        if reaching.unbound or len(ours) != len(reaching.bindings):
            return None  # the read may see the volatile value or another one
        if sem.gradmode.grad_disabled(node) is True or _reads_no_graph(ctx, node):
            continue  # nothing can be recorded from it there
        if sem.tree.enclosing(node, (cst.Lambda,)) is not None:
            return None
        region = _region(ctx, node, None, volatile)
        if region is None:
            return None
        region = _merge(ctx, regions, region)
        if region is not None:
            regions.append(region)
    return regions


def _only_wraps(ctx: FileContext, stmt: cst.CSTNode) -> bool:
    """Whether every call in ``stmt`` is a ``Variable(...)``, is inside one's
    arguments (computed before the wrapping, as in 0.3), or is a method of what one
    returns (``Variable(x, volatile=True).float()``): nothing there needs a guard.
    ``enc(Variable(x, volatile=True))`` ran volatile in 0.3."""
    names = ctx.semantic.names
    wraps = [n for n in walk(stmt, into_functions=False) if isinstance(n, cst.Call) and names.is_call_to(n, VARIABLE)]
    wrap_ids = {id(w) for w in wraps}
    for call in walk(stmt, into_functions=False):
        if not isinstance(call, cst.Call) or id(call) in wrap_ids or any(ctx.tree.is_inside(w, call) for w in wraps):
            continue
        base: cst.CSTNode = call.func
        while isinstance(base, (cst.Attribute, cst.Subscript, cst.Call)) and id(base) not in wrap_ids:
            base = base.func if isinstance(base, cst.Call) else base.value
        if id(base) not in wrap_ids:
            return False
    return True


def _reads_no_graph(ctx: FileContext, name: cst.Name) -> bool:
    """Whether this read takes only what has no history from the value:
    ``x.data``, ``x.shape``, ``x.size(0)``, ``x.numpy()``, ``len(x)``."""
    parent = ctx.parent(name)
    if isinstance(parent, cst.Attribute) and parent.value is name:
        if parent.attr.value in NO_GRAPH_ATTRIBUTES:
            return True
        call = ctx.parent(parent)
        return isinstance(call, cst.Call) and call.func is parent and parent.attr.value in NO_GRAPH_METHODS
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in PYTHON_VALUE_FUNCS
    return False


def _inside(ctx: FileContext, region: _Region, node: cst.CSTNode) -> bool:
    body = region.block.body  # type: ignore[attr-defined]
    return any(ctx.tree.is_inside(stmt, node) for stmt in body[region.start : region.end + 1])


def _region(
    ctx: FileContext, call: cst.CSTNode, flag: Optional[cst.Arg], volatile: FrozenSet[str] = frozenset()
) -> Optional[_Region]:
    """The region from the statement holding ``call``. Statements after it that read
    ``volatile`` names (values volatile in 0.3 held since before the region) may sit
    inside it but do not extend it."""
    sem = ctx.semantic
    stmt = sem.tree.enclosing_statement(call)
    if stmt is None:
        return None
    block = ctx.parent(stmt)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None  # ``if c: x = Variable(...)`` on one line
    body = list(block.body)
    start = next(i for i, s in enumerate(body) if s is stmt)
    reached = _assigned(stmt, set(volatile))
    if reached is None:
        return None
    end, between = start, []
    for i in range(start + 1, len(body)):
        if _reads(body[i], reached):
            assigned = _assigned(body[i], reached)
            if assigned is None:
                return None
            reached |= assigned
            end = i
        else:
            between.append(i)
            if isinstance(body[i], cst.SimpleStatementLine) and _reads(body[i], volatile):
                # Volatile in 0.3 too: what it computes joins the region if read in it
                # (a compound statement's reads are uses of their own).
                reached |= _assigned(body[i], reached | volatile) or set()
    inside = body[start : end + 1]
    # A statement between that does not read the value ran with gradients in 0.3
    # too, and would run under no_grad here: only one that records nothing may.
    bound = set(reached)
    for i in between:
        if i > end:
            break
        assigned = _assigned(body[i], reached | volatile)
        if assigned is None or (_records(ctx, body[i], whole=True) and not _reads(body[i], volatile)):
            return None
        bound |= assigned
    if any(_trains_or_yields(ctx, s) for s in inside) or _escapes(ctx, inside, bound):
        return None
    ref = sem.names.torch_ref_at(stmt)
    if ref is None:
        return None
    torch_name, imports = ref
    return _Region(block, start, end, [(cast(cst.Call, call), flag)] if flag is not None else [], torch_name, bool(imports))


def _assigned(stmt: cst.CSTNode, reached: Set[str]) -> Optional[Set[str]]:
    """The names ``stmt`` binds; None when it stores into an attribute or item of
    something other than a ``reached`` name (the value would leave through another
    object; ``input.data = input.data.cuda()`` stays in the one it came from)."""
    names: Set[str] = set()
    for node in walk(stmt, into_functions=False):
        targets: Sequence[cst.BaseExpression] = ()
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, cst.AsName):
            targets = [node.name]
        elif isinstance(node, cst.NamedExpr):
            targets = [node.target]
        for target in targets:
            for sub in _flat(target):
                if isinstance(sub, cst.Name):
                    names.add(sub.value)
                elif not _stored_into(sub, reached):
                    return None
    return names


def _stored_into(target: cst.BaseExpression, reached: Set[str]) -> bool:
    """Whether ``target`` is an attribute or item of a ``reached`` name."""
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return isinstance(target, cst.Name) and target.value in reached


def _flat(target: cst.BaseExpression) -> List[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [x for e in target.elements for x in _flat(e.value)]
    if isinstance(target, cst.StarredElement):
        return _flat(target.value)
    return [target]


def _reads(stmt: cst.CSTNode, names: AbstractSet[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in walk(stmt, into_functions=True))


def _trains_or_yields(ctx: FileContext, stmt: cst.CSTNode) -> bool:
    calls = ctx.semantic.calls
    for node in walk(stmt, into_functions=False):
        if isinstance(node, cst.Yield):
            return True
        if isinstance(node, cst.Call) and calls.may_train(node):
            return True
    return False


def _escapes(ctx: FileContext, inside: Sequence[cst.CSTNode], reached: Set[str]) -> bool:
    """Whether a name bound inside the region is read outside it where that could
    record a graph: in this scope, a read that a binding from the region may reach,
    in a statement that runs a forward or a loss (a ``print(correct)`` after the loop
    records nothing either way); in another scope, any read."""
    sem = ctx.semantic
    scope = sem.tree.function_scope(inside[0])
    root = scope if isinstance(scope, cst.Module) else scope.body
    for node in walk(root, into_functions=True):
        if not isinstance(node, cst.Name) or node.value not in reached:
            continue
        if any(ctx.tree.is_inside(stmt, node) for stmt in inside):
            continue
        if not sem.scopes.is_read(node):
            continue
        if sem.tree.function_scope(node) is not scope:
            # A function's own local (a comprehension's ``for state in states``)
            # is another variable; a free or global read may be the region's.
            reaching = sem.scopes.reaching(node)
            own = sem.tree.function_scope(node)
            if reaching.unbound or not reaching.bindings or any(b.node is None or sem.tree.function_scope(b.node) is not own for b in reaching.bindings):
                return True
            continue
        if any(b.node is not None and any(ctx.tree.is_inside(stmt, b.node) for stmt in inside) for b in sem.scopes.reaching(node).bindings):
            stmt = sem.tree.enclosing_statement(node)
            if stmt is None or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or _records(ctx, stmt):
                return True
    return False


def _records(ctx: FileContext, stmt: cst.CSTNode, whole: bool = False) -> bool:
    """Whether ``stmt`` (its header, for a compound statement, unless ``whole``)
    calls something that may record a graph: a forward, a loss, a function of this
    file."""
    values = ctx.semantic.values
    header = stmt if whole or isinstance(stmt, cst.SimpleStatementLine) else _header(stmt)
    for node in walk(header, into_functions=False):
        if isinstance(node, cst.Call) and (values.graph_source(node) is not None or ctx.semantic.calls.local_function(node) is not None):
            return True
    return False


def _header(stmt: cst.CSTNode) -> cst.CSTNode:
    for attr in ("test", "iter", "items"):
        part = getattr(stmt, attr, None)
        if part is not None:
            return part if isinstance(part, cst.CSTNode) else cst.Tuple([cst.Element(i.item) for i in part])
    return stmt


class _Apply(cst.CSTTransformer):
    def __init__(self, regions: List[_Region], dropped: Sequence[Tuple[cst.Call, cst.Arg]] = ()) -> None:
        self.by_block: Dict[int, List[_Region]] = {}
        for r in regions:
            self.by_block.setdefault(id(r.block), []).append(r)
        self.flags: Dict[int, cst.Arg] = {id(c): f for r in regions for c, f in r.calls}
        self.flags.update((id(c), f) for c, f in dropped)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        flag = self.flags.get(id(original))
        if flag is None:
            return updated
        index = original.args.index(flag)
        return codegen.without_arg(updated, updated.args[index])

    def _wrap(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        regions = self.by_block.get(id(original))
        if not regions:
            return updated
        body = list(updated.body)  # type: ignore[attr-defined]
        for r in sorted(regions, key=lambda r: r.start, reverse=True):
            guard = codegen.wrap_in_with(body[r.start : r.end + 1], f"{r.torch_name}.no_grad()")
            body[r.start : r.end + 1] = [guard]
        return updated.with_changes(body=body)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return self._wrap(original, updated)  # type: ignore[return-value]

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return self._wrap(original, updated)  # type: ignore[return-value]


def _with_torch_import(module: cst.Module) -> cst.Module:
    """``import torch`` after the docstring and ``__future__`` imports."""
    body = list(module.body)
    at = 0
    for i, stmt in enumerate(body):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)) and i == 0:
            at = 1
        elif isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) and small.module.value == "__future__":
            at = i + 1
        else:
            break
    body.insert(at, cst.parse_statement("import torch\n"))
    return module.with_changes(body=body)
