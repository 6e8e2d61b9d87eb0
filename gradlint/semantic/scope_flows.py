"""The flow graph of one scope: which names (keyed by their dotted chain) a value
flows into, and the sinks by which it leaves (``Route``); ``escape`` builds it
and asks it. Its route kinds are described in ``escape``'s docstring."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

import libcst as cst

from gradlint.semantic.tree import walk

@dataclass(frozen=True)
class Route:
    kind: str
    node: cst.CSTNode  # the call, statement or function by which the value leaves
    certain: bool = True


@dataclass(eq=False)
class _Sink:
    route: Route
    keys: FrozenSet[str]
    expr: Optional[cst.CSTNode] = None  # the expression that leaves, where there is one
    # For an argument of a call: what the callee does with it, found when first needed.
    resolve: Optional[Callable[[], Optional[Route]]] = None
    _resolved: bool = False

    def final(self) -> Optional[Route]:
        if self.resolve is not None and not self._resolved:
            self.route = self.resolve()  # type: ignore[assignment]
            self._resolved = True
        return self.route


@dataclass(eq=False)
class _Edge:
    targets: FrozenSet[str]
    sources: FrozenSet[str]
    node: cst.CSTNode
    values: Tuple[cst.BaseExpression, ...] = ()  # what flows; none of it with history: no flow
    live: Optional[FrozenSet[str]] = None  # ``sources`` less those read only inside plain calls


@dataclass(eq=False)
class ScopeFlows:
    """The flows and sinks of one scope. Whether an expression can carry history
    (``values``) is asked only of the edges and sinks a question reaches."""

    scope: cst.CSTNode
    plain: Callable[[cst.BaseExpression], bool]
    # Whether this read of a name may hold what an earlier binding gave it with a
    # graph: not when every binding that reaches it carries none (``a =
    # a.detach().numpy()`` before ``env.step(a)``). Keys are names, not versions.
    carries: Callable[[cst.Name], bool] = lambda name: True
    edges: List[_Edge] = field(default_factory=list)
    sinks: List[_Sink] = field(default_factory=list)
    _plain_cache: Dict[int, bool] = field(default_factory=dict)

    def _is_plain(self, expr: cst.BaseExpression) -> bool:
        found = self._plain_cache.get(id(expr))
        if found is None:
            found = self._plain_cache[id(expr)] = self.plain(expr)
        return found

    def _flows(self, edge: _Edge) -> bool:
        return not edge.values or not all(self._is_plain(v) for v in edge.values)

    def _flows_on(self, edge: _Edge) -> bool:
        """``_flows``, forward only: a loop variable drawn from what carries no graph
        (``for sent in preds.tolist()``) holds none, though the loop's iterable is
        still where it comes from (``sources_of``)."""
        if not edge.values and isinstance(edge.node, (cst.For, cst.CompFor)):
            return not self._is_plain(edge.node.iter)
        return self._flows(edge)

    def _live_sources(self, edge: _Edge) -> FrozenSet[str]:
        """The keys whose values the edge carries: not those read only inside a call whose
        result carries no graph (``torch.cat([ids, logits[:, -1].argmax(-1)])`` carries
        ``ids``, not ``logits``)."""
        if edge.live is None:
            if not edge.values:
                edge.live = edge.sources
            else:
                edge.live = self._value_keys(edge.values, True) & edge.sources
        return edge.live

    def _value_keys(self, values: Iterable[cst.CSTNode], plain_calls: bool) -> FrozenSet[str]:
        """The keys whose values ``values`` may hold: not those read only as an index
        (an index selects, it is not part of what it selects: gradients never flow
        through a tensor's indices, and a list or dict holds its own elements, so
        ``idx_to_tag[out[i].argmax()]`` is a tag with no graph of ``out``), nor, with
        ``plain_calls``, those read only inside a call whose result carries no graph."""
        found: Set[str] = set()

        def visit(node: cst.CSTNode, top: bool) -> None:
            if plain_calls and not top and isinstance(node, cst.Call) and self._is_plain(node):
                return
            if isinstance(node, cst.Subscript):
                visit(node.value, False)
                return
            if isinstance(node, (cst.Name, cst.Attribute)):
                base = node
                while isinstance(base, cst.Attribute):
                    base = base.value  # type: ignore[assignment]
                if isinstance(base, cst.Name) and not self.carries(base):
                    return
                k = key(node)
                if k:
                    found.add(k)
            for child in node.children:
                visit(child, False)

        for value in values:
            visit(value, True)
        return frozenset(found)

    def _sink_keys(self, sink: _Sink) -> FrozenSet[str]:
        return sink.keys if sink.expr is None else sink.keys & self._value_keys([sink.expr], False)

    def derived(self, keys: Iterable[str]) -> Set[str]:
        """``keys`` and every key a value of theirs flows into."""
        found = set(keys)
        changed = True
        while changed:
            changed = False
            for edge in self.edges:
                if (
                    not edge.targets <= found
                    and not edge.sources.isdisjoint(found)
                    and self._flows_on(edge)
                    and not self._live_sources(edge).isdisjoint(found)
                ):
                    found |= edge.targets
                    changed = True
        return found

    def sources_of(self, keys: Iterable[str]) -> Set[str]:
        """``keys`` and every key whose value flows into one of them (``p`` of ``for p in
        netD.parameters()`` comes from ``netD``). Not through a value that carries no
        history (``noise = torch.randn_like(logits)`` is new, not part of ``logits``)."""
        found = set(keys)
        changed = True
        while changed:
            changed = False
            for edge in self.edges:
                if not edge.targets.isdisjoint(found) and not edge.sources <= found and self._flows(edge):
                    found |= edge.sources
                    changed = True
        return found

    def _leaves(self, sink: _Sink) -> bool:
        return sink.expr is None or sink.route.kind == "backward" or not self._is_plain(sink.expr)  # type: ignore[arg-type]

    def routes(self, keys: Iterable[str], kinds: Optional[FrozenSet[str]] = None) -> List[Route]:
        """The routes by which a value held by one of ``keys`` leaves the scope."""
        reach = self.derived(keys)
        out = []
        for s in self.sinks:
            if self._sink_keys(s).isdisjoint(reach) or (s.resolve is None and kinds is not None and s.route.kind not in kinds):
                continue
            route = s.final()
            if route is not None and (kinds is None or route.kind in kinds) and self._leaves(s):
                out.append(route)
        return out

    def derived_of_nodes(self, seeds: Iterable[cst.CSTNode]) -> Set[str]:
        """The keys that hold (a value computed from) the value of one of ``seeds``."""
        seed_ids = {id(s) for s in seeds}
        keys: Set[str] = set()
        for edge in self.edges:
            # A seed must be in what flows, not anywhere in the edge's statement: the body
            # of ``for x in loader:`` holds ``model(x)``, yet ``x`` does not come from it.
            # Nor does a seed read only inside a call whose result carries no graph:
            # ``best = criterion(model(x), y).item()`` holds a float.
            if edge.values:
                hit = any(self._holds_seed(e, seed_ids, True) for e in edge.values)
            else:
                hit = any(id(n) in seed_ids for e in _edge_source(edge.node) for n in walk(e))
            if hit and self._flows(edge):
                keys |= edge.targets
        return self.derived(keys)

    def _holds_seed(self, node: cst.CSTNode, seed_ids: Set[int], top: bool) -> bool:
        if id(node) in seed_ids:
            return True
        if not top and type(node) is cst.Call and self._is_plain(node):
            return False
        return any(self._holds_seed(child, seed_ids, False) for child in node.children)

    def routes_of_nodes(self, seeds: Iterable[cst.CSTNode], tree: Any, kinds: Optional[FrozenSet[str]] = None) -> List[Route]:
        """The routes of the values the expressions ``seeds`` compute: directly (``return
        model(x)``) or through the names they are assigned to."""
        seeds = list(seeds)
        seed_ids = {id(s) for s in seeds}
        reach = self.derived_of_nodes(seeds)
        out = []
        for s in self.sinks:
            if s.resolve is None and kinds is not None and s.route.kind not in kinds:
                continue
            hit = not self._sink_keys(s).isdisjoint(reach) or (s.expr is not None and self._holds_seed(s.expr, seed_ids, True))
            if not hit:
                continue
            route = s.final()
            if route is not None and (kinds is None or route.kind in kinds) and self._leaves(s):
                out.append(route)
        return out


    def accumulates(self, seeds: Iterable[cst.CSTNode], tree: Any, within: cst.CSTNode) -> bool:
        """Whether a value the expressions ``seeds`` compute (directly or through the
        names it flows into) is added, by a statement inside ``within`` (a loop), to
        something it then outlives the statement in: appended or stored into a
        container (``outs.append(v)``, ``outs[i] = v``), summed (``total += v``) or
        joined to the name's own value (``outs = torch.cat([outs, v])``). Rebinding
        a name to a value without its old one (``out = model(x)``) replaces, it does
        not accumulate."""
        seed_ids = {id(s) for s in seeds}
        direct: List[_Edge] = []
        keys: Set[str] = set()
        for edge in self.edges:
            exprs = edge.values or _edge_source(edge.node)
            if any(id(n) in seed_ids for e in exprs for n in walk(e)) and self._flows(edge):
                keys |= edge.targets
                direct.append(edge)
        reach = self.derived(keys)
        for edge in self.edges:
            if not _accumulating(edge.node) or not tree.is_inside(within, edge.node) or not self._flows(edge):
                continue
            if any(e is edge for e in direct) or not self._live_sources(edge).isdisjoint(reach):
                return True
        return False


def _mutates(node: cst.CSTNode) -> bool:
    """``xs.append(v)`` (a mutator's edge), ``xs[i] = v``, ``obj.a = v``: the object
    changes, not what a name is bound to."""
    if isinstance(node, cst.Call):
        return True
    if isinstance(node, cst.Assign):
        return any(isinstance(t.target, (cst.Subscript, cst.Attribute)) for t in node.targets)
    return isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, (cst.Subscript, cst.Attribute))


def _accumulating(node: cst.CSTNode) -> bool:
    """``total += v``, ``xs.append(v)`` (a mutator), ``xs[i] = v``, ``xs =
    torch.cat([xs, v])`` (a name rebound to a value made from its old one)."""
    if isinstance(node, (cst.AugAssign, cst.Call)):
        return True
    if isinstance(node, cst.Assign):
        if any(isinstance(t.target, cst.Subscript) for t in node.targets):
            return True
        names = {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
        return bool(names) and any(isinstance(n, cst.Name) and n.value in names for n in walk(node.value))
    return isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Subscript)


def key(expr: cst.BaseExpression) -> Optional[str]:
    """``total`` -> "total"; ``self.stats`` -> "self.stats"; ``hist[i]`` -> "hist"."""
    while isinstance(expr, cst.Subscript):
        expr = expr.value
    parts: List[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def keys_in(node: cst.CSTNode) -> FrozenSet[str]:
    found: Set[str] = set()
    for sub in walk(node, into_functions=True):
        if isinstance(sub, (cst.Name, cst.Attribute)):
            k = key(sub)
            if k:
                found.add(k)
    return frozenset(found)


def _edge_source(node: cst.CSTNode) -> Tuple[cst.CSTNode, ...]:
    """The expression whose value an edge without ``values`` carries to its targets."""
    if isinstance(node, (cst.For, cst.CompFor)):
        return (node.iter,)
    if isinstance(node, cst.WithItem):
        return (node.item,)
    return (node,)
