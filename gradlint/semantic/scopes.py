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

Reaching definitions are computed per scope by ``semantic.reaching``; the data
types (bindings, scopes) are in ``semantic.bindings``.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

import libcst as cst

from gradlint.semantic.bindings import (
    BINDING_TYPES,
    MATCH_BINDERS,
    ONLY_UNBOUND,
    SCOPE_TYPES,
    UNBOUND,
    Binding,
    Reaching,
    Scope,
    ScopeNode,
    State,
    Visible,
    all_params,
    assignment_bindings,
    is_leaf,
)
from gradlint.semantic.reaching import Flow
from gradlint.semantic.tree import Tree
from gradlint.traversal import children, target_names

# Re-exported: the concepts and rules name bindings through the scope analysis.
__all__ = ["Binding", "Reaching", "Scope", "Scopes", "UNBOUND", "Visible", "assignment_bindings"]

class Scopes:
    def __init__(self, module: cst.Module, tree: Tree, source: Optional[str] = None) -> None:
        self.module = module
        self.tree = tree
        # Only files that spell them can declare names global or nonlocal.
        self._declarations = source is None or "global" in source or "nonlocal" in source
        self._by_node: Dict[int, Scope] = {}
        self._scope_of: Dict[int, Scope] = {}  # id(Name/expression root) -> the scope it is evaluated in
        self._flows: Dict[int, "Flow"] = {}
        self._pending = 0  # function bodies not read yet
        self._module_binds: Dict[str, Tuple[int, Tuple[Binding, ...], bool]] = {}
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
            target = self.enclosing_function(scope) or scope
        target.bindings.setdefault(name, []).append(binding)
        if target is not scope:
            scope.bindings.setdefault(name, [])  # seen here too, for the flow

    def enclosing_function(self, scope: Scope) -> Optional[Scope]:
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
            elif kind not in SCOPE_TYPES:
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
            if kind in SCOPE_TYPES:
                if kind is cst.FunctionDef or kind is cst.Lambda:
                    self._function(cur, scope)  # type: ignore[arg-type]
                elif kind is cst.ClassDef:
                    self._class(cur, scope)  # type: ignore[arg-type]
                else:
                    self._comprehension(cur, scope)
                continue
            if kind in BINDING_TYPES:
                self._bind(cur, scope)
            found = children(cur)
            if found:
                stack.extend(c for c in reversed(found) if not is_leaf(type(c)))

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
        elif kind in MATCH_BINDERS:
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
        for p in all_params(params):
            if p.default is not None:
                self._visit(p.default, scope)
            if p.annotation is not None:
                self._visit(p.annotation, scope)
        inner = self._new(node, "function" if isinstance(node, cst.FunctionDef) else "lambda", scope)
        for p in all_params(params):
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

    def read(self, scope: Scope) -> Scope:
        """``scope``, with its body read if it is a function's not read yet."""
        return self._ensure(scope) if scope.pending is not None else scope

    def ensure_all(self) -> None:
        """Read every function body not read yet (for questions about the whole file)."""
        if not self._pending:
            return
        stack = [self.root]
        while stack:
            scope = stack.pop()
            self._ensure(scope)
            stack.extend(scope.children)

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

    def _module_bindings(self, name: str) -> Tuple[Tuple[Binding, ...], bool]:
        """The module's bindings of ``name`` that bind it, and whether it may be
        unbound there (no binding, or a ``del``): what a function body, which may run
        after any of them, sees. A file made of many modules binds a name hundreds of
        times, and every function that reads it asked this of all of them. Remembered
        with the number of bindings: reading a function body later can only add some
        (a ``global`` statement)."""
        binds = self.root.bindings.get(name, [])
        known = self._module_binds.get(name)
        if known is None or known[0] != len(binds):
            kept = tuple(b for b in binds if not b.unbinds)
            known = self._module_binds[name] = (len(binds), kept, not binds or len(kept) != len(binds))
        return known[1], known[2]

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
                    kept, unbound = self._module_bindings(name)
                    return Visible(tuple(found) + kept, unbound)
                may = (state or {}).get(name, ONLY_UNBOUND)
                return Visible(tuple(found) + tuple(b for b in may if b is not UNBOUND and not b.unbinds), UNBOUND in may or any(b.unbinds for b in may))
            if scope.kind in ("function", "lambda", "comprehension"):
                if name in scope.globals:
                    kept, unbound = self._module_bindings(name)
                    return Visible(tuple(found) + kept, unbound)
                if name in scope.nonlocals:
                    deferred = True
                    outer = self.enclosing_function(scope)
                    if outer is None:
                        return Visible(tuple(found), True)
                    binds = outer.bindings.get(name, [])
                    return Visible(tuple(found) + tuple(b for b in binds if not b.unbinds), not binds)
                if scope.is_local(name):
                    if deferred:
                        binds = scope.bindings[name]
                        return Visible(tuple(found) + tuple(b for b in binds if not b.unbinds), any(b.unbinds for b in binds))
                    may = (state or {}).get(name, ONLY_UNBOUND)
                    return Visible(tuple(found) + tuple(b for b in may if b is not UNBOUND and not b.unbinds), UNBOUND in may or any(b.unbinds for b in may))
                if scope.runs_later:
                    deferred = True
            elif scope.kind == "class" and not deferred and name in scope.bindings:
                may = (state or {}).get(name, ONLY_UNBOUND)
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

    def _flow(self, scope: Scope) -> "Flow":
        found = self._flows.get(id(scope))
        if found is None:
            found = self._flows[id(scope)] = Flow(self, self._ensure(scope))
        return found
