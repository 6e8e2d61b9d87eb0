"""Flow-sensitive reaching definitions over one scope's code.

Computed per scope, the first time a question about that scope is asked, by one
structured pass over its statements: branches of ``if``/``match``/``try`` are
joined, loop bodies iterated to a fixed point (back edges, ``break``,
``continue`` and ``else`` clauses included), and ``return``/``raise``/``break``/
``continue`` end their path. The state at a point maps each name to the
bindings that may hold there, with ``UNBOUND`` among them where some path
reaches the point with the name unbound (or, for a name of an enclosing scope,
not yet rebound here). ``del`` and the end of an ``except ... as name`` handler
unbind.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, cast

import libcst as cst

from gradlint.semantic.bindings import (
    COMPREHENSION_TYPES,
    MATCH_BINDERS,
    ONLY_UNBOUND,
    UNBOUND,
    Binding,
    Reaching,
    Scope,
    ScopeIndex,
    State,
    all_params,
)
from gradlint.traversal import children, target_names

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
            merged |= s.get(name, ONLY_UNBOUND)
        out[name] = frozenset(merged)
    return out


class Flow:
    """One pass over a scope's code, recording the state at each use and statement."""

    def __init__(self, scopes: ScopeIndex, scope: Scope) -> None:
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
            for p in all_params(node.params):
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
        may = self.uses.get(id(name), ONLY_UNBOUND)
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
        outer = self.scopes.enclosing_function(scope)
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
            for p in all_params(stmt.params):  # type: ignore[attr-defined]
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
                end[name.value] = ONLY_UNBOUND  # Python deletes the name when the handler ends
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
        may = state.get(name.value, ONLY_UNBOUND)
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
            for p in all_params(node.params):  # type: ignore[attr-defined]
                if p.default is not None:
                    self._expr(p.default, state)
        elif kind in COMPREHENSION_TYPES:
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
        if isinstance(cur, MATCH_BINDERS):
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
        stack.extend(c for c in children(cur) if not isinstance(c, cst.Name) or not isinstance(cur, MATCH_BINDERS))


def _irrefutable(pattern: cst.CSTNode) -> bool:
    """``case _:`` and ``case name:``: match anything."""
    return hasattr(cst, "MatchAs") and isinstance(pattern, cst.MatchAs) and pattern.pattern is None
