"""Scopes, bindings and flow-sensitive reaching definitions.

Scopes follow Python's rules: the module, each class body, each function and
lambda, and each comprehension (whose first iterable is evaluated in the
enclosing scope). A function's decorators, defaults and annotations, and a
class's decorators and bases, are evaluated where the ``def``/``class``
statement stands. A walrus binds in the nearest enclosing scope that is not a
comprehension. ``global``/``nonlocal`` names belong to the scope they name.

A function's body is read the first time a question reaches into it (its
parameters, name and the code its ``def`` evaluates are read with the scope
around it): a rule asking about one function of a large file pays for that
function and the module's own statements, not for every method of every
class. Only ``global``/``nonlocal`` let a body bind names of other scopes; a
file that spells either has every body read at once.

Reaching definitions are computed per scope, the first time a question about
that scope is asked, by one structured pass over its statements: branches of
``if``/``match``/``try`` are joined, loop bodies iterated to a fixed point
(back edges, ``break``, ``continue`` and ``else`` clauses included), and
``return``/``raise``/``break``/``continue`` end their path. The state at a
point maps each name to the bindings that may hold there, with ``UNBOUND``
among them where some path reaches the point with the name unbound (or, for a
name of an enclosing scope, not yet rebound here). ``del`` and the end of an
``except ... as name`` handler unbind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, Union, cast

import libcst as cst

from gradlint.semantic.tree import Tree
from gradlint.traversal import children, target_names

ScopeNode = Union[cst.Module, cst.ClassDef, cst.FunctionDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_COMPREHENSION_TYPES = frozenset(COMPREHENSIONS)
_SCOPE_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef}) | _COMPREHENSION_TYPES
_MATCH_BINDERS = tuple(getattr(cst, n) for n in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(cst, n))
_LEAVES: Dict[type, bool] = {}
_LEAF_BASES = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment,
    cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseUnaryOp, cst.BaseCompOp, cst.BaseAugOp,
    cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
)


def _is_leaf(kind: type) -> bool:
    """Whitespace, punctuation and operators: nothing under them binds or opens a scope."""
    found = _LEAVES.get(kind)
    if found is None:
        found = _LEAVES[kind] = issubclass(kind, _LEAF_BASES)
    return found


_BINDING_TYPES = frozenset(
    {cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem, cst.ExceptHandler, cst.Import, cst.ImportFrom, cst.Del, cst.NamedExpr}
    | {getattr(cst, "ExceptStarHandler", cst.ExceptHandler)}
    | set(_MATCH_BINDERS)
)


@dataclass(frozen=True, eq=False)
class Binding:
    """One way a name gets a value (or loses it) in a scope.

    ``kind`` says what is known of the value: "assign" (``value`` is what the name
    holds), "unpack" (a part of ``value``), "for" (an item of ``value``), "param",
    or "other". ``form`` says which syntax binds: "assign", "unpack", "aug",
    "annotation" (declares the name local, binds nothing), "for", "with",
    "except", "import", "def", "class", "walrus", "match", "param", "del".
    """

    kind: str
    value: Optional[cst.BaseExpression] = None
    node: Optional[cst.CSTNode] = None
    form: str = "other"
    name: Optional[cst.CSTNode] = None  # the Name bound, where there is one

    @property
    def unbinds(self) -> bool:
        return self.form == "del"


# A name unbound on some path (or bound only in an enclosing scope so far).
UNBOUND = Binding("other", form="unbound")

State = Dict[str, FrozenSet[Binding]]
_ONLY_UNBOUND: FrozenSet[Binding] = frozenset({UNBOUND})


@dataclass(eq=False)
class Scope:
    node: ScopeNode
    kind: str  # "module" | "class" | "function" | "lambda" | "comprehension"
    parent: Optional["Scope"]
    bindings: Dict[str, List[Binding]] = field(default_factory=dict)
    globals: Set[str] = field(default_factory=set)
    nonlocals: Set[str] = field(default_factory=set)
    children: List["Scope"] = field(default_factory=list)
    # A function body not read yet (see ``Scopes._ensure``).
    pending: Optional[cst.BaseSuite] = None

    def is_local(self, name: str) -> bool:
        return name in self.bindings and name not in self.globals and name not in self.nonlocals

    @property
    def runs_later(self) -> bool:
        """Its body runs when called, not where it is defined."""
        return self.kind in ("function", "lambda")


@dataclass(frozen=True)
class Reaching:
    """What may and what certainly reaches a use of a name in its scope."""

    bindings: Tuple[Binding, ...]  # the bindings of this scope that may hold there
    unbound: bool  # some path reaches the use with no binding of this scope (or after ``del``)

    @property
    def certain(self) -> Optional[Binding]:
        """The one binding that holds on every path, if there is one."""
        if self.unbound or len(self.bindings) != 1:
            return None
        return self.bindings[0]


@dataclass(frozen=True)
class Visible:
    """What a name denotes at run time at some point: the bindings of whichever
    scope it resolves to, and whether it may be unbound there (a ``NameError``,
    or a builtin)."""

    bindings: Tuple[Binding, ...]
    unbound: bool


class Scopes:
    def __init__(self, module: cst.Module, tree: Tree, source: Optional[str] = None) -> None:
        self.module = module
        self.tree = tree
        # Only files that spell them can declare names global or nonlocal.
        self._declarations = source is None or "global" in source or "nonlocal" in source
        self._by_node: Dict[int, Scope] = {}
        self._scope_of: Dict[int, Scope] = {}  # id(Name/expression root) -> the scope it is evaluated in
        self._flows: Dict[int, "_Flow"] = {}
        self._pending = 0  # function bodies not read yet
        self.root = self._build()

    # -- building ---------------------------------------------------------------

    def _build(self) -> Scope:
        root = self.root = Scope(self.module, "module", None)
        self._by_node[id(self.module)] = root
        self._visit_block(self.module, root)
        return root

    def _new(self, node: ScopeNode, kind: str, parent: Scope) -> Scope:
        scope = Scope(node, kind, parent)
        parent.children.append(scope)
        self._by_node[id(node)] = scope
        return scope

    def _add(self, scope: Scope, name: str, binding: Binding) -> None:
        target = scope
        if name in scope.globals:
            target = self.root
        elif name in scope.nonlocals:
            target = self._enclosing_function(scope) or scope
        target.bindings.setdefault(name, []).append(binding)
        if target is not scope:
            scope.bindings.setdefault(name, [])  # seen here too, for the flow

    def _enclosing_function(self, scope: Scope) -> Optional[Scope]:
        cur = scope.parent
        while cur is not None and cur.kind not in ("function", "lambda"):
            cur = cur.parent
        return cur

    def _walrus_scope(self, scope: Scope) -> Scope:
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        return scope

    def _visit_block(self, node: cst.CSTNode, scope: Scope) -> None:
        # Declarations first: ``global x`` anywhere in a function makes every binding of x global.
        stack = list(children(node)) if self._declarations else []
        while stack:
            cur = stack.pop()
            kind = type(cur)
            if kind is cst.Global:
                scope.globals.update(n.name.value for n in cur.names)  # type: ignore[attr-defined]
            elif kind is cst.Nonlocal:
                scope.nonlocals.update(n.name.value for n in cur.names)  # type: ignore[attr-defined]
            elif kind not in _SCOPE_TYPES:
                stack.extend(children(cur))
        for child in children(node):
            self._visit(child, scope)

    def _visit(self, node: cst.CSTNode, scope: Scope, record: bool = True) -> None:
        """Bind what ``node`` binds in ``scope``, and open the scopes under it. Only the
        roots of regions (``record``) and names are recorded in ``_scope_of``:
        ``scope_of`` finds the rest through their parents."""
        scope_of = self._scope_of
        if record:
            scope_of[id(node)] = scope
        stack = [node]
        while stack:
            cur = stack.pop()
            kind = type(cur)
            if kind is cst.Name:
                scope_of[id(cur)] = scope  # names are asked about most: no walk up for them
                continue
            if kind in _SCOPE_TYPES:
                if kind is cst.FunctionDef or kind is cst.Lambda:
                    self._function(cur, scope)  # type: ignore[arg-type]
                elif kind is cst.ClassDef:
                    self._class(cur, scope)  # type: ignore[arg-type]
                else:
                    self._comprehension(cur, scope)
                continue
            if kind in _BINDING_TYPES:
                self._bind(cur, scope)
            found = children(cur)
            if found:
                stack.extend(c for c in reversed(found) if not _is_leaf(type(c)))

    def _bind(self, node: cst.CSTNode, scope: Scope) -> None:
        kind = type(node)
        if kind is cst.Assign:
            for t in node.targets:  # type: ignore[attr-defined]
                for name, binding in assignment_bindings(t.target, node.value, node):  # type: ignore[attr-defined]
                    self._add(scope, name, binding)
        elif kind is cst.AnnAssign:
            if isinstance(node.target, cst.Name):  # type: ignore[attr-defined]
                value = node.value  # type: ignore[attr-defined]
                b = Binding("assign", value, node, "assign", node.target) if value is not None else Binding(  # type: ignore[attr-defined]
                    "other", None, node, "annotation", node.target  # type: ignore[attr-defined]
                )
                self._add(scope, node.target.value, b)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:
            if isinstance(node.target, cst.Name):  # type: ignore[attr-defined]
                self._add(scope, node.target.value, Binding("other", node.value, node, "aug", node.target))  # type: ignore[attr-defined]
        elif kind is cst.For:
            for n in target_names(node.target):  # type: ignore[attr-defined]
                self._add(scope, n.value, Binding("for", node.iter, node, "for", n))  # type: ignore[attr-defined]
        elif kind is cst.WithItem:
            if node.asname is not None:  # type: ignore[attr-defined]
                for n in target_names(node.asname.name):  # type: ignore[attr-defined]
                    self._add(scope, n.value, Binding("other", None, node, "with", n))
        elif kind is cst.ExceptHandler or kind is getattr(cst, "ExceptStarHandler", None):
            if node.name is not None and isinstance(node.name.name, cst.Name):  # type: ignore[attr-defined]
                self._add(scope, node.name.name.value, Binding("other", None, node, "except", node.name.name))  # type: ignore[attr-defined]
        elif kind is cst.Import or kind is cst.ImportFrom:
            if not isinstance(node.names, cst.ImportStar):  # type: ignore[attr-defined]
                for alias in node.names:  # type: ignore[attr-defined]
                    if alias.asname is not None:
                        for n in target_names(alias.asname.name):
                            self._add(scope, n.value, Binding("other", None, node, "import", n))
                    else:
                        top = alias.name
                        while isinstance(top, cst.Attribute):
                            top = top.value
                        if isinstance(top, cst.Name):
                            self._add(scope, top.value, Binding("other", None, node, "import", top))
        elif kind is cst.Del:
            for n in target_names(node.target):  # type: ignore[attr-defined]
                self._add(scope, n.value, Binding("other", None, node, "del", n))
        elif kind is cst.NamedExpr:
            if isinstance(node.target, cst.Name):  # type: ignore[attr-defined]
                self._add(self._walrus_scope(scope), node.target.value, Binding("assign", node.value, node, "walrus", node.target))  # type: ignore[attr-defined]
        elif kind in _MATCH_BINDERS:
            for attr in ("name", "rest"):
                value = getattr(node, attr, None)
                if isinstance(value, cst.Name):
                    self._add(scope, value.value, Binding("other", None, node, "match", value))

    def _function(self, node: Union[cst.FunctionDef, cst.Lambda], scope: Scope) -> None:
        params = node.params
        # Evaluated where the definition stands.
        if isinstance(node, cst.FunctionDef):
            for dec in node.decorators:
                self._visit(dec, scope)
            if node.returns is not None:
                self._visit(node.returns, scope)
        for p in _all_params(params):
            if p.default is not None:
                self._visit(p.default, scope)
            if p.annotation is not None:
                self._visit(p.annotation, scope)
        inner = self._new(node, "function" if isinstance(node, cst.FunctionDef) else "lambda", scope)
        for p in _all_params(params):
            self._scope_of[id(p)] = inner
            self._scope_of[id(p.name)] = inner
            inner.bindings.setdefault(p.name.value, []).append(Binding("param", None, p, "param", p.name))
        if isinstance(node, cst.FunctionDef):
            self._add(scope, node.name.value, Binding("other", None, node, "def", node.name))
            self._scope_of[id(node.name)] = scope
            self._scope_of[id(node.body)] = inner
            if self._declarations:
                self._visit_block(node.body, inner)
            else:
                inner.pending = node.body
                self._pending += 1
        else:
            self._visit(node.body, inner)

    def _class(self, node: cst.ClassDef, scope: Scope) -> None:
        for dec in node.decorators:
            self._visit(dec, scope)
        for arg in (*node.bases, *node.keywords):
            self._visit(arg, scope)
        inner = self._new(node, "class", scope)
        self._add(scope, node.name.value, Binding("other", None, node, "class", node.name))
        self._scope_of[id(node.name)] = scope
        self._scope_of[id(node.body)] = inner
        self._visit_block(node.body, inner)

    def _comprehension(self, node: cst.CSTNode, scope: Scope) -> None:
        first: cst.CompFor = node.for_in  # type: ignore[attr-defined]
        self._visit(first.iter, scope)
        inner = self._new(node, "comprehension", scope)  # type: ignore[arg-type]
        self._scope_of[id(node)] = scope
        for child in children(node):
            if child is first:
                self._comp_for(first, inner, skip_iter=True)
            else:
                self._visit(child, inner)

    def _comp_for(self, comp: cst.CompFor, scope: Scope, skip_iter: bool = False) -> None:
        self._scope_of[id(comp)] = scope
        for n in target_names(comp.target):
            self._add(scope, n.value, Binding("for", comp.iter, comp, "for", n))
        for child in children(comp):
            if child is comp.iter and skip_iter:
                continue
            if isinstance(child, cst.CompFor):
                self._comp_for(child, scope)
            else:
                self._visit(child, scope)

    def _ensure(self, scope: Scope) -> Scope:
        """``scope`` with its function body read (and so the scopes directly in it known)."""
        body = scope.pending
        if body is not None:
            scope.pending = None
            self._pending -= 1
            self._visit_block(body, scope)
        return scope

    def _read_around(self, node: cst.CSTNode) -> None:
        """Read the unread function bodies that hold ``node``, outermost first (reading
        one makes the functions defined in it known: again, until none is left)."""
        while True:
            chain: List[Scope] = []
            cur: Optional[cst.CSTNode] = node
            while cur is not None:
                found = self._by_node.get(id(cur))
                if found is not None and found.pending is not None:
                    chain.append(found)
                cur = self.tree.parent(cur)
            if not chain:
                return
            for scope in reversed(chain):
                self._ensure(scope)

    # -- questions ----------------------------------------------------------------

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope in which ``node`` is evaluated (a decorator: where its ``def`` stands)."""
        found = self._scope_of.get(id(node))
        if found is not None:
            return self._ensure(found) if found.pending is not None else found
        if self._pending:
            self._read_around(node)
            found = self._scope_of.get(id(node))
            if found is not None:
                return self._ensure(found)
        cur: Optional[cst.CSTNode] = node
        while found is None and cur is not None:
            cur = self.tree.parent(cur)
            if cur is None:
                break
            found = self._scope_of.get(id(cur))
        found = self._ensure(found or self.root)
        self._scope_of[id(node)] = found
        return found

    def scope(self, node: cst.CSTNode) -> Optional[Scope]:
        """The scope ``node`` (a module, class, function, lambda or comprehension) opens."""
        found = self._by_node.get(id(node))
        if found is None and self._pending:
            self._read_around(node)
            found = self._by_node.get(id(node))
        return self._ensure(found) if found is not None else None

    def bindings(self, node: cst.CSTNode) -> Dict[str, List[Binding]]:
        """How each name is bound in the scope ``node`` opens (a module, function, ...)."""
        scope = self.scope(node)
        return scope.bindings if scope is not None else {}

    def reaching(self, name: cst.Name) -> Reaching:
        """The bindings of ``name``'s own scope that may reach this use of it."""
        scope = self.scope_of(name)
        return self._flow(scope).reaching(name)

    def is_read(self, name: cst.Name) -> bool:
        """Whether ``name`` is a read of a variable (not a target, attribute or keyword)."""
        return id(name) in self._flow(self.scope_of(name)).uses

    def reaching_binding(self, name: cst.Name) -> Optional[Binding]:
        """The binding that certainly holds when ``name`` is read, else None."""
        return self.reaching(name).certain

    def same_object(self, name: cst.Name) -> Optional[Binding]:
        """Like ``reaching_binding``, through augmented assignments (``y += 1`` edits
        a tensor in place, so ``y`` still holds what the binding before it gave)."""
        b = self.reaching_binding(name)
        seen = 0
        while b is not None and b.form == "aug" and seen < 20:
            target = b.node.target  # type: ignore[union-attr]
            b = self.reaching_binding(target) if isinstance(target, cst.Name) else None
            seen += 1
        return b

    def state_before(self, node: cst.CSTNode) -> Tuple[Scope, Optional[State]]:
        """The scope ``node`` is evaluated in, and the flow state just before the
        innermost statement holding it runs (None where no path reaches it)."""
        scope = self.scope_of(node)
        flow = self._flow(scope)
        cur: Optional[cst.CSTNode] = node
        while cur is not None and cur is not scope.node:
            found = flow.before.get(id(cur))
            if found is not None:
                return scope, found
            cur = self.tree.parent(cur)
        return scope, None

    def visible(self, name: str, node: cst.CSTNode) -> Visible:
        """What ``name`` would denote in code run at ``node``: for a ``def`` or
        ``class`` statement, its decorators (evaluated where it stands, before its
        name is bound); for any other node, the statement holding it, just before
        it runs. Follows Python's rules outward: a class body's names are not seen
        from its methods; the body of a function runs when it is called, so what
        an enclosing scope binds anywhere may hold then."""
        scope, state = self.state_before(node)
        deferred = False
        found: List[Binding] = []
        while True:
            if scope.kind == "module":
                if deferred:
                    binds = self.root.bindings.get(name, [])
                    unbound = not binds or any(b.unbinds for b in binds)
                    return Visible(tuple(found) + tuple(b for b in binds if not b.unbinds), unbound)
                may = (state or {}).get(name, _ONLY_UNBOUND)
                return Visible(tuple(found) + tuple(b for b in may if b is not UNBOUND and not b.unbinds), UNBOUND in may or any(b.unbinds for b in may))
            if scope.kind in ("function", "lambda", "comprehension"):
                if name in scope.globals:
                    binds = self.root.bindings.get(name, [])
                    return Visible(tuple(found) + tuple(b for b in binds if not b.unbinds), not binds or any(b.unbinds for b in binds))
                if name in scope.nonlocals:
                    deferred = True
                    outer = self._enclosing_function(scope)
                    if outer is None:
                        return Visible(tuple(found), True)
                    binds = outer.bindings.get(name, [])
                    return Visible(tuple(found) + tuple(b for b in binds if not b.unbinds), not binds)
                if scope.is_local(name):
                    if deferred:
                        binds = scope.bindings[name]
                        return Visible(tuple(found) + tuple(b for b in binds if not b.unbinds), any(b.unbinds for b in binds))
                    may = (state or {}).get(name, _ONLY_UNBOUND)
                    return Visible(tuple(found) + tuple(b for b in may if b is not UNBOUND and not b.unbinds), UNBOUND in may or any(b.unbinds for b in may))
                if scope.runs_later:
                    deferred = True
            elif scope.kind == "class" and not deferred and name in scope.bindings:
                may = (state or {}).get(name, _ONLY_UNBOUND)
                found.extend(b for b in may if b is not UNBOUND and not b.unbinds)
                if UNBOUND not in may and not any(b.unbinds for b in may):
                    return Visible(tuple(found), False)
            # On to the enclosing scope, at the statement that defines this one.
            outer_node = scope.node
            assert scope.parent is not None
            scope = scope.parent
            if not deferred:
                _, state = self.state_before(outer_node)
            else:
                state = None

    def _flow(self, scope: Scope) -> "_Flow":
        found = self._flows.get(id(scope))
        if found is None:
            found = self._flows[id(scope)] = _Flow(self, self._ensure(scope))
        return found


def _all_params(params: cst.Parameters) -> Iterable[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


def assignment_bindings(
    target: cst.BaseExpression, value: cst.BaseExpression, node: cst.CSTNode
) -> Iterable[Tuple[str, Binding]]:
    """(name, binding) for each name ``target = value`` binds; ``a, b = x, y`` pairs
    the elements up when the lengths match (and nothing is starred)."""
    if isinstance(target, cst.Name):
        yield target.value, Binding("assign", value, node, "assign", target)
        return
    if isinstance(target, (cst.Tuple, cst.List)):
        values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
        if values is not None and len(values) == len(target.elements) and not any(
            isinstance(e, cst.StarredElement) for e in (*values, *target.elements)
        ):
            for el, val in zip(target.elements, values):
                if isinstance(el.value, cst.Name):
                    yield el.value.value, Binding("assign", val.value, node, "assign", el.value)
                else:
                    for n in target_names(el.value):
                        yield n.value, Binding("unpack", val.value, node, "unpack", n)
            return
        for n in target_names(target):
            yield n.value, Binding("unpack", value, node, "unpack", n)


class _LoopFrame:
    def __init__(self) -> None:
        self.breaks: List[Optional[State]] = []
        self.continues: List[Optional[State]] = []


def _join(*states: Optional[State]) -> Optional[State]:
    live = [s for s in states if s is not None]
    if not live:
        return None
    if len(live) == 1:
        return dict(live[0])
    out: State = {}
    names = set().union(*live)
    for name in names:
        merged: Set[Binding] = set()
        for s in live:
            merged |= s.get(name, _ONLY_UNBOUND)
        out[name] = frozenset(merged)
    return out


class _Flow:
    """One pass over a scope's code, recording the state at each use and statement."""

    def __init__(self, scopes: Scopes, scope: Scope) -> None:
        self.scopes = scopes
        self.scope = scope
        self.uses: Dict[int, FrozenSet[Binding]] = {}
        self.before: Dict[int, State] = {}
        self.loops: List[_LoopFrame] = []
        # Names whose bindings this pass follows: the scope's own (and, for a
        # walrus in a comprehension, the enclosing scope's, recorded there).
        node = scope.node
        state: State = {}
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            for p in _all_params(node.params):
                state[p.name.value] = frozenset(b for b in scope.bindings.get(p.name.value, []) if b.form == "param")
            if isinstance(node, cst.FunctionDef):
                self._block(node.body, state)
            else:
                self._expr(node.body, state)
        elif scope.kind == "comprehension":
            self._comprehension(node, state)
        elif isinstance(node, cst.ClassDef):
            self._block(node.body, state)
        else:
            self._stmts(cast(cst.Module, node).body, state)

    def reaching(self, name: cst.Name) -> Reaching:
        may = self.uses.get(id(name), _ONLY_UNBOUND)
        unbound = UNBOUND in may or any(b.unbinds for b in may)
        found = [b for b in may if b is not UNBOUND and not b.unbinds]
        # Ordering asks where each binding is, which for a binding the engine's walk has
        # not reached yet means a walk of the whole file: not for one binding.
        binds = tuple(sorted(found, key=self._order)) if len(found) > 1 else tuple(found)
        return Reaching(binds, unbound)

    def _order(self, b: Binding) -> int:
        node = b.name if b.name is not None else b.node
        try:
            return self.scopes.tree.order(node)[0] if node is not None else -1
        except KeyError:
            return -1

    # -- bindings ---------------------------------------------------------------

    def _set(self, state: State, name: str, binding: Binding) -> None:
        state[name] = frozenset({binding})

    def _binding_for(self, name_node: cst.CSTNode, form: str) -> Optional[Binding]:
        """The binding recorded for this Name node (``_bind`` made it)."""
        scope = self.scope
        for binds in (scope.bindings.get(name_node.value, ()), self.scopes.root.bindings.get(name_node.value, ())):  # type: ignore[attr-defined]
            for b in binds:
                if b.name is name_node and b.form == form:
                    return b
        outer = self.scopes._enclosing_function(scope)
        if outer is not None:
            for b in outer.bindings.get(name_node.value, ()):  # type: ignore[attr-defined]
                if b.name is name_node and b.form == form:
                    return b
        return None

    def _bind_names(self, state: State, names: Iterable[cst.Name], form: str) -> None:
        for n in names:
            b = self._binding_for(n, form)
            if b is not None:
                self._set(state, n.value, b)

    def _assign_target(self, target: cst.BaseExpression, state: State, form: str = "assign") -> None:
        if isinstance(target, cst.Name):
            b = self._binding_for(target, "assign") or self._binding_for(target, "unpack")
            if b is not None:
                self._set(state, target.value, b)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._assign_target(el.value, state, form)
        elif isinstance(target, cst.StarredElement):
            self._assign_target(target.value, state, form)
        elif isinstance(target, cst.Attribute):
            self._expr(target.value, state)
        elif isinstance(target, cst.Subscript):
            self._expr(target.value, state)
            for element in target.slice:
                self._expr(element, state)
        else:
            self._expr(target, state)

    def _for_target(self, target: cst.BaseExpression, state: State) -> None:
        for n in target_names(target):
            b = self._binding_for(n, "for")
            if b is not None:
                self._set(state, n.value, b)
        if not isinstance(target, cst.Name):
            self._assign_sub_targets(target, state)

    def _assign_sub_targets(self, target: cst.BaseExpression, state: State) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._assign_sub_targets(el.value, state)
        elif isinstance(target, cst.StarredElement):
            self._assign_sub_targets(target.value, state)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self._assign_target(target, state)

    # -- statements ----------------------------------------------------------------

    def _block(self, body: cst.BaseSuite, state: Optional[State]) -> Optional[State]:
        if isinstance(body, cst.SimpleStatementSuite):
            return self._smalls(body.body, state)
        return self._stmts(body.body, state)

    def _stmts(self, stmts: Iterable[cst.CSTNode], state: Optional[State]) -> Optional[State]:
        for stmt in stmts:
            if state is None:
                return None
            self._record_before(stmt, state)
            state = self._stmt(stmt, state)
        return state

    def _record_before(self, stmt: cst.CSTNode, state: State) -> None:
        prev = self.before.get(id(stmt))
        self.before[id(stmt)] = dict(state) if prev is None else _join(prev, state)  # type: ignore[assignment]

    def _smalls(self, smalls: Iterable[cst.BaseSmallStatement], state: Optional[State]) -> Optional[State]:
        for small in smalls:
            if state is None:
                return None
            state = self._small(small, state)
        return state

    def _stmt(self, stmt: cst.CSTNode, state: State) -> Optional[State]:
        kind = type(stmt)
        if kind is cst.SimpleStatementLine:
            return self._smalls(stmt.body, state)  # type: ignore[attr-defined]
        if kind is cst.If:
            return self._if(stmt, state)  # type: ignore[arg-type]
        if kind is cst.While:
            return self._while(stmt, state)  # type: ignore[arg-type]
        if kind is cst.For:
            return self._for(stmt, state)  # type: ignore[arg-type]
        if kind is cst.Try or kind is getattr(cst, "TryStar", None):
            return self._try(stmt, state)
        if kind is cst.With:
            for item in stmt.items:  # type: ignore[attr-defined]
                self._expr(item.item, state)
                if item.asname is not None:
                    names = list(target_names(item.asname.name))
                    self._bind_names(state, names, "with")
                    if not isinstance(item.asname.name, cst.Name):
                        self._assign_sub_targets(item.asname.name, state)
            return self._block(stmt.body, state)  # type: ignore[attr-defined]
        if kind is cst.FunctionDef:
            for dec in stmt.decorators:  # type: ignore[attr-defined]
                self._expr(dec.decorator, state)
            for p in _all_params(stmt.params):  # type: ignore[attr-defined]
                if p.default is not None:
                    self._expr(p.default, state)
            self._bind_names(state, [stmt.name], "def")  # type: ignore[attr-defined]
            return state
        if kind is cst.ClassDef:
            for dec in stmt.decorators:  # type: ignore[attr-defined]
                self._expr(dec.decorator, state)
            for arg in (*stmt.bases, *stmt.keywords):  # type: ignore[attr-defined]
                self._expr(arg.value, state)
            self._bind_names(state, [stmt.name], "class")  # type: ignore[attr-defined]
            return state
        if hasattr(cst, "Match") and kind is cst.Match:
            return self._match(stmt, state)
        # Anything else: evaluate what it holds.
        for child in children(stmt):
            self._expr(child, state)
        return state

    def _small(self, small: cst.CSTNode, state: State) -> Optional[State]:
        kind = type(small)
        if kind is cst.Expr:
            self._expr(small.value, state)  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            self._expr(small.value, state)  # type: ignore[attr-defined]
            for t in small.targets:  # type: ignore[attr-defined]
                self._assign_target(t.target, state)
        elif kind is cst.AnnAssign:
            if small.value is not None:  # type: ignore[attr-defined]
                self._expr(small.value, state)  # type: ignore[attr-defined]
                self._assign_target(small.target, state)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:
            target = small.target  # type: ignore[attr-defined]
            self._expr(target, state)  # reads it first
            self._expr(small.value, state)  # type: ignore[attr-defined]
            if isinstance(target, cst.Name):
                self._bind_names(state, [target], "aug")
        elif kind is cst.Del:
            target = small.target  # type: ignore[attr-defined]
            self._bind_names(state, target_names(target), "del")
            if not isinstance(target, cst.Name):
                self._assign_sub_targets(target, state)
        elif kind is cst.Return or kind is cst.Raise:
            for child in children(small):
                self._expr(child, state)
            return None
        elif kind is cst.Break:
            if self.loops:
                self.loops[-1].breaks.append(dict(state))
            return None
        elif kind is cst.Continue:
            if self.loops:
                self.loops[-1].continues.append(dict(state))
            return None
        elif kind is cst.Import or kind is cst.ImportFrom:
            if not isinstance(small.names, cst.ImportStar):  # type: ignore[attr-defined]
                for alias in small.names:  # type: ignore[attr-defined]
                    if alias.asname is not None:
                        self._bind_names(state, target_names(alias.asname.name), "import")
                    else:
                        top = alias.name
                        while isinstance(top, cst.Attribute):
                            top = top.value
                        if isinstance(top, cst.Name):
                            self._bind_names(state, [top], "import")
        elif kind is cst.Global or kind is cst.Nonlocal or kind is cst.Pass:
            pass
        else:
            for child in children(small):
                self._expr(child, state)
        return state

    def _if(self, stmt: cst.If, state: State) -> Optional[State]:
        self._expr(stmt.test, state)
        then = self._block(stmt.body, dict(state))
        orelse = stmt.orelse
        if orelse is None:
            other: Optional[State] = dict(state)
        elif isinstance(orelse, cst.If):
            self._record_before(orelse, state)
            other = self._if(orelse, dict(state))
        else:
            other = self._block(orelse.body, dict(state))
        return _join(then, other)

    def _loop(self, state: State, run_body: Callable[[State], Optional[State]]) -> Tuple[State, _LoopFrame]:
        """Iterate ``run_body(entry) -> end state`` to a fixed point; the entry
        state (where the loop test or the iterator runs) and the last frame."""
        entry: State = dict(state)
        for _ in range(50):
            frame = _LoopFrame()
            self.loops.append(frame)
            try:
                end = run_body(dict(entry))
            finally:
                self.loops.pop()
            new = _join(state, end, *frame.continues)
            assert new is not None
            if new == entry:
                return entry, frame
            entry = new
        return entry, frame

    def _while(self, stmt: cst.While, state: State) -> Optional[State]:
        def body(entry: State) -> Optional[State]:
            self._expr(stmt.test, entry)
            return self._block(stmt.body, entry)

        entry, frame = self._loop(state, body)
        self._expr(stmt.test, entry)
        forever = isinstance(stmt.test, cst.Name) and stmt.test.value == "True"
        normal: Optional[State] = None if forever else entry
        if stmt.orelse is not None and normal is not None:
            normal = self._block(stmt.orelse.body, dict(normal))
        return _join(normal, *frame.breaks)

    def _for(self, stmt: cst.For, state: State) -> Optional[State]:
        self._expr(stmt.iter, state)

        def body(entry: State) -> Optional[State]:
            self._for_target(stmt.target, entry)
            return self._block(stmt.body, entry)

        entry, frame = self._loop(state, body)
        normal: Optional[State] = entry
        if stmt.orelse is not None:
            normal = self._block(stmt.orelse.body, dict(entry))
        return _join(normal, *frame.breaks)

    def _try(self, stmt: cst.CSTNode, state: State) -> Optional[State]:
        # An exception may leave the body after any of its statements.
        raised: List[Optional[State]] = [dict(state)]
        cur: Optional[State] = dict(state)
        body = stmt.body  # type: ignore[attr-defined]
        stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
        for s in stmts:
            if cur is None:
                break
            if isinstance(s, cst.BaseStatement):
                self._record_before(s, cur)
                cur = self._stmt(s, cur)
            else:
                cur = self._smalls(s.body, cur)
            raised.append(cur)
        on_raise = _join(*raised)
        outcomes: List[Optional[State]] = []
        for handler in stmt.handlers:  # type: ignore[attr-defined]
            if on_raise is None:
                break
            h = dict(on_raise)
            if handler.type is not None:
                self._expr(handler.type, h)
            name = handler.name.name if handler.name is not None else None
            if isinstance(name, cst.Name):
                self._bind_names(h, [name], "except")
            end = self._block(handler.body, h)
            if end is not None and isinstance(name, cst.Name):
                end[name.value] = _ONLY_UNBOUND  # Python deletes the name when the handler ends
            outcomes.append(end)
        normal = cur
        if stmt.orelse is not None and normal is not None:  # type: ignore[attr-defined]
            normal = self._block(stmt.orelse.body, normal)  # type: ignore[attr-defined]
        after = _join(normal, *outcomes)
        final = stmt.finalbody  # type: ignore[attr-defined]
        if final is not None:
            # Run on the way out of an exception too (for what it reads), then on the normal path.
            if on_raise is not None:
                self._block(final.body, _join(on_raise, after) or {})
            if after is None:
                return None
            return self._block(final.body, after)
        return after

    def _match(self, stmt: cst.CSTNode, state: State) -> Optional[State]:
        self._expr(stmt.subject, state)  # type: ignore[attr-defined]
        outcomes: List[Optional[State]] = []
        exhaustive = False
        for case in stmt.cases:  # type: ignore[attr-defined]
            s = dict(state)
            binders = [n for n in _walk_pattern(case.pattern)]
            for node in binders:
                for attr in ("name", "rest"):
                    value = getattr(node, attr, None)
                    if isinstance(value, cst.Name):
                        self._bind_names(s, [value], "match")
            for sub in _pattern_values(case.pattern):
                self._expr(sub, s)
            if case.guard is not None:
                self._expr(case.guard, s)
            elif _irrefutable(case.pattern):
                exhaustive = True
            outcomes.append(self._block(case.body, s))
        if not exhaustive:
            outcomes.append(dict(state))
        return _join(*outcomes)

    # -- expressions ------------------------------------------------------------------

    def _record_use(self, name: cst.Name, state: State) -> None:
        may = state.get(name.value, _ONLY_UNBOUND)
        prev = self.uses.get(id(name))
        self.uses[id(name)] = may if prev is None else prev | may

    def _expr(self, node: cst.CSTNode, state: State) -> None:
        kind = type(node)
        if kind is cst.Name:
            self._record_use(node, state)  # type: ignore[arg-type]
        elif kind is cst.Attribute:
            self._expr(node.value, state)  # type: ignore[attr-defined]
        elif kind is cst.Arg:
            self._expr(node.value, state)  # type: ignore[attr-defined]
        elif kind is cst.NamedExpr:
            self._expr(node.value, state)  # type: ignore[attr-defined]
            if isinstance(node.target, cst.Name):  # type: ignore[attr-defined]
                self._bind_names(state, [node.target], "walrus")  # type: ignore[attr-defined]
        elif kind is cst.BooleanOperation:
            self._expr(node.left, state)  # type: ignore[attr-defined]
            maybe = dict(state)
            self._expr(node.right, maybe)  # type: ignore[attr-defined]
            self._merge_into(state, maybe)
        elif kind is cst.IfExp:
            self._expr(node.test, state)  # type: ignore[attr-defined]
            a, b = dict(state), dict(state)
            self._expr(node.body, a)  # type: ignore[attr-defined]
            self._expr(node.orelse, b)  # type: ignore[attr-defined]
            joined = _join(a, b) or {}
            state.clear()
            state.update(joined)
        elif kind is cst.Lambda:
            for p in _all_params(node.params):  # type: ignore[attr-defined]
                if p.default is not None:
                    self._expr(p.default, state)
        elif kind in _COMPREHENSION_TYPES:
            if self.scopes.scope(node) is self.scope:
                return
            self._expr(node.for_in.iter, state)  # type: ignore[attr-defined]
            # A walrus inside binds here, if the comprehension runs at all.
            maybe = dict(state)
            for sub in _walrus_in(node):
                if isinstance(sub.target, cst.Name):
                    self._bind_names(maybe, [sub.target], "walrus")
            self._merge_into(state, maybe)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            return
        else:
            for child in children(node):
                self._expr(child, state)

    def _merge_into(self, state: State, maybe: State) -> None:
        joined = _join(state, maybe) or {}
        state.clear()
        state.update(joined)

    def _comprehension(self, node: cst.CSTNode, state: State) -> None:
        comp: Optional[cst.CompFor] = node.for_in  # type: ignore[attr-defined]
        first = True
        while comp is not None:
            if not first:
                self._expr(comp.iter, state)
            first = False
            self._for_target(comp.target, state)
            for cond in comp.ifs:
                self._expr(cond.test, state)
            comp = comp.inner_for_in
        for name in ("elt", "key", "value"):
            part = getattr(node, name, None)
            if part is not None:
                self._expr(part, state)


def _walrus_in(node: cst.CSTNode) -> Iterable[cst.NamedExpr]:
    stack = list(children(node))
    while stack:
        cur = stack.pop()
        if type(cur) is cst.NamedExpr:
            yield cur
        if type(cur) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            continue
        stack.extend(children(cur))


def _walk_pattern(pattern: cst.CSTNode) -> Iterable[cst.CSTNode]:
    stack = [pattern]
    while stack:
        cur = stack.pop()
        if isinstance(cur, _MATCH_BINDERS):
            yield cur
        stack.extend(children(cur))


def _pattern_values(pattern: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Expressions a pattern evaluates: value patterns (``Color.RED``) and class names."""
    stack = [pattern]
    while stack:
        cur = stack.pop()
        if hasattr(cst, "MatchValue") and isinstance(cur, cst.MatchValue):
            yield cur.value
            continue
        if hasattr(cst, "MatchClass") and isinstance(cur, cst.MatchClass):
            yield cur.cls
        stack.extend(c for c in children(cur) if not isinstance(c, cst.Name) or not isinstance(cur, _MATCH_BINDERS))


def _irrefutable(pattern: cst.CSTNode) -> bool:
    """``case _:`` and ``case name:``: match anything."""
    return hasattr(cst, "MatchAs") and isinstance(pattern, cst.MatchAs) and pattern.pattern is None
