"""The shape of one parsed file: parents, walk order, spans, enclosing nodes.

The engine's walk fills ``parents``, ``starts`` and ``ends`` as it goes (it
visits every node anyway), so most files never pay for a walk of their own.
A question about a node the walk has not reached yet (a visitor looking at its
node's operands) records every parent of the file in one plain walk; LibCST's
``ParentNodeProvider`` would rebuild the tree three times for the same answer.

Positions come from one rendering of the module with plain tuples keyed by
``id()`` (see ``gradlint.traversal.positions``), computed the first time a
span is asked for.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Type, Union

import libcst as cst

from gradlint.traversal import children, node_types, positions, record_parents, top_level_code

_NOT_VISITED = object()

# Exact types, not isinstance(): CSTNode is an ABC, whose isinstance() costs a
# Python-level call, and walks test every node of a file.
NEW_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})

Loop = Union[cst.For, cst.While]
Span = Tuple[Tuple[int, int], Tuple[int, int]]


# The tree whose nodes were recorded last (see ``Tree.nodes``): walks under its
# nodes read its list instead of finding each node's children again.
_recorded: Optional["Tree"] = None


def walk(node: cst.CSTNode, into_functions: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (itself included) in source order. Nested functions,
    lambdas and classes are yielded but not entered, unless ``into_functions``."""
    tree = _recorded
    if tree is not None:
        start = tree.starts.get(id(node))
        nodes = tree._recorded
        # The same object at that place: ids are only unique among live objects.
        if start is not None and nodes is not None and nodes[start] is node:
            return _walk_recorded(nodes, tree.ends, start, into_functions)
    return _walk_children(node, into_functions)


def _walk_recorded(nodes: List[cst.CSTNode], ends: Dict[int, int], start: int, into_functions: bool) -> Iterator[cst.CSTNode]:
    # A node's subtree is the slice of the walk order from it to its last descendant.
    end = ends[id(nodes[start])]
    if into_functions:
        yield from nodes[start : end + 1]
        return
    yield nodes[start]
    i = start + 1
    scopes = NEW_SCOPES
    while i <= end:
        cur = nodes[i]
        yield cur
        i = ends[id(cur)] + 1 if type(cur) in scopes else i + 1


def _walk_children(node: cst.CSTNode, into_functions: bool) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        if cur is not node and not into_functions and type(cur) in NEW_SCOPES:
            continue
        stack.extend(reversed(children(cur)))


def _record_reusing(
    module: cst.Module,
    previous: "Tree",
    parents: Dict[int, Optional[cst.CSTNode]],
    starts: Dict[int, int],
    ends: Dict[int, int],
    nodes: List[cst.CSTNode],
) -> None:
    """``record_parents(module, ...)``, taking what ``previous`` (a complete tree) recorded
    for the top-level statements the two modules share (the fix loop's next module keeps
    the objects of the statements a round left alone, ``reparse.spliced_parse``): a node's
    subtree is the same objects wherever it stands, so its parents are, and its walk
    order is a slice of the previous one, moved. The rest is walked."""
    starts[id(module)] = 0
    nodes.append(module)
    count = 1
    old_nodes, old_starts, old_ends, old_parents = previous._recorded, previous.starts, previous.ends, previous.parents
    assert old_nodes is not None
    for stmt in children(module):
        parents[id(stmt)] = module
        start = old_starts.get(id(stmt))
        if start is None or start >= len(old_nodes) or old_nodes[start] is not stmt:
            count = record_parents(stmt, parents, starts, ends, nodes, count)
            continue
        part = old_nodes[start : old_ends[id(stmt)] + 1]
        ids = list(map(id, part))
        nodes.extend(part)
        starts.update(zip(ids, range(count, count + len(part))))
        ends.update(zip(ids, map((count - start).__add__, map(old_ends.__getitem__, ids))))
        inner = ids[1:]
        parents.update(zip(inner, map(old_parents.__getitem__, inner)))
        count += len(part)
    ends[id(module)] = count - 1


class Tree:
    """Parents, order and spans of the nodes of ``module``."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        # id() of every node visited so far -> its parent (ids, since CSTNode.__hash__
        # is a Python call; the tree keeps the nodes, so their ids stay theirs).
        self.parents: Dict[int, Optional[cst.CSTNode]] = {}
        # id() of each node visited -> its index in the walk; of each node left ->
        # the last index under it (see ``order``).
        self.starts: Dict[int, int] = {}
        self.ends: Dict[int, int] = {}
        self._all_parents = False
        # Every node in walk order (``nodes``).
        self._recorded: Optional[List[cst.CSTNode]] = None
        self._by_type: Optional[Dict[type, List[cst.CSTNode]]] = None
        self._positions: Optional[Dict[int, Tuple[int, int, int, int]]] = None
        # The tokens of the rendering the positions came from (see ``top_level_code``).
        self._rendered: List[object] = []

    # -- parents and order ----------------------------------------------------

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        found = self.parents.get(id(node), _NOT_VISITED)
        if found is _NOT_VISITED:
            if self._all_parents:
                return None  # not in this tree
            self._record_parents()
            found = self.parents.get(id(node))
        return found  # type: ignore[return-value]

    def _record_parents(self) -> None:
        self._all_parents = True
        self.parents[id(self.module)] = None
        global _recorded
        self._recorded = []
        previous = _recorded
        if previous is None or previous._recorded is None or type(self.module) is not cst.Module:
            record_parents(self.module, self.parents, self.starts, self.ends, self._recorded)
        else:
            _record_reusing(self.module, previous, self.parents, self.starts, self.ends, self._recorded)
        _recorded = self

    @property
    def complete(self) -> bool:
        """Whether every node's parent and place in the walk order are recorded
        (``order`` then answers for any node without recording anything)."""
        return self._all_parents

    def nodes(self) -> Sequence[cst.CSTNode]:
        """Every node of the file in walk order (LibCST's visiting order), the module first."""
        if self._recorded is None:
            self._record_parents()
        return self._recorded  # type: ignore[return-value]

    def nodes_of(self, kind: Type[cst.CSTNode]) -> Sequence[cst.CSTNode]:
        """Every node of exactly the type ``kind`` in the file, in source order: for
        questions about the whole file (every reference to a name), without a walk."""
        if self._by_type is None:
            nodes = self.nodes()
            by_type: Dict[type, List[cst.CSTNode]] = {}
            for node in nodes:
                found = by_type.get(type(node))
                if found is None:
                    by_type[type(node)] = [node]
                else:
                    found.append(node)
            self._by_type = by_type
        return self._by_type.get(kind, ())

    def order(self, node: cst.CSTNode) -> Tuple[int, int]:
        """(``node``'s index, the largest index of a node under it) in visiting order:
        ``order(a)[1] < order(b)[0]`` when ``a`` ends before ``b`` starts. Cheaper than
        a position for files that turn out to need no position at all."""
        start = self.starts.get(id(node))
        if start is None and not self._all_parents:
            self._record_parents()
            start = self.starts.get(id(node))
        if start is None:
            raise KeyError(f"{type(node).__name__} node is not in this file's tree")
        # A node the walk is inside of has not ended yet: it ends after every node visited so far.
        return start, self.ends.get(id(node), 1 << 62)

    def ends_before(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """Whether ``first`` ends before ``second`` starts, in the source: the one
        ordering primitive (flow questions go to ``scopes``, not to line numbers)."""
        if not self._all_parents and id(second) in self.starts and id(first) not in self.ends:
            # ``first`` is not walked yet (so it comes after every node walked so
            # far, ``second`` too), or the walk is inside it: either way, no.
            return False
        return self.order(first)[1] < self.order(second)[0]

    # -- spans ----------------------------------------------------------------

    def span(self, node: cst.CSTNode) -> Span:
        """((line, column), (end line, end column)): 1-based lines, 0-based columns."""
        line, column, end_line, end_column = self._span(node)
        return (line, column), (end_line, end_column)

    def line(self, node: cst.CSTNode) -> int:
        return self._span(node)[0]

    def _span(self, node: cst.CSTNode) -> Tuple[int, int, int, int]:
        if self._positions is None:
            self._positions = positions(self.module, self._rendered)
        return self._positions[id(node)]

    def top_level_code(self) -> Optional[Dict[int, Tuple[cst.CSTNode, str]]]:
        """The code of each node of the module's header, body and footer (see
        ``traversal.top_level_code``), where the positions were computed (their
        rendering gives it); else None."""
        if not self._rendered:
            return None
        return top_level_code(self.module, self._rendered)

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # -- enclosing nodes --------------------------------------------------------

    def is_inside(self, outer: cst.CSTNode, node: cst.CSTNode) -> bool:
        """Whether ``node`` is ``outer`` or lies within it."""
        cur: Optional[cst.CSTNode] = node
        while cur is not None:
            if cur is outer:
                return True
            cur = self.parent(cur)
        return False

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        cur = self.parent(node)
        while cur is not None:
            yield cur
            cur = self.parent(cur)

    def enclosing(
        self,
        node: cst.CSTNode,
        kinds: Tuple[Type[cst.CSTNode], ...],
        stop: Tuple[Type[cst.CSTNode], ...] = (),
    ) -> Optional[cst.CSTNode]:
        """The nearest ancestor of one of ``kinds``, not looking past one of ``stop``."""
        # Exact types, not isinstance(): an ABC check for each ancestor that is not one.
        wanted, stops = node_types(kinds), node_types(stop)
        for cur in self.ancestors(node):
            if type(cur) in wanted:
                return cur
            if type(cur) in stops:
                return None
        return None

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function whose body holds ``node`` directly (not through a lambda or class)."""
        found = self.enclosing(node, (cst.FunctionDef,), stop=(cst.Lambda, cst.ClassDef))
        return found  # type: ignore[return-value]

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        return self.enclosing(node, (cst.ClassDef,))  # type: ignore[return-value]

    def method_class(self, func: cst.FunctionDef) -> Optional[cst.ClassDef]:
        """The class ``func`` is a method of (defined directly in its body), if any."""
        block = self.parent(func)
        cls = self.parent(block) if block is not None else None
        return cls if isinstance(cls, cst.ClassDef) else None

    def function_scope(self, node: cst.CSTNode) -> Union[cst.Module, cst.FunctionDef, cst.Lambda]:
        """The nearest function or lambda around ``node``, else the module: the unit
        whose body runs when it is called."""
        found = self.enclosing(node, (cst.FunctionDef, cst.Lambda))
        return found if found is not None else self.module  # type: ignore[return-value]

    def enclosing_loop(self, node: cst.CSTNode) -> Optional[Loop]:
        """The innermost ``for``/``while`` whose body holds ``node``, within its function."""
        cur, parent = node, self.parent(node)
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return None
            if isinstance(parent, (cst.For, cst.While)) and cur is parent.body:
                return parent
            cur, parent = parent, self.parent(parent)
        return None

    def enclosing_statement(self, node: cst.CSTNode) -> Optional[cst.BaseStatement]:
        """The innermost statement (simple statement line or compound) holding ``node``."""
        if isinstance(node, cst.BaseStatement):
            return node
        found = self.enclosing(node, (cst.BaseStatement,))
        return found  # type: ignore[return-value]

    def first(self, node: cst.CSTNode, test: Callable[[cst.CSTNode], bool], into_functions: bool = False) -> Optional[cst.CSTNode]:
        return next((n for n in walk(node, into_functions) if test(n)), None)

    def block_index(self, stmt: cst.CSTNode) -> Optional[Tuple[Sequence[cst.CSTNode], int]]:
        """The statements of the block holding ``stmt``, and ``stmt``'s index in them."""
        block = self.parent(stmt)
        body = getattr(block, "body", None)
        if isinstance(body, (list, tuple)):
            for i, s in enumerate(body):
                if s is stmt:
                    return body, i
        return None


# A unit of code that runs as a whole: the module, or a function or lambda body.
FunctionScope = Union[cst.Module, cst.FunctionDef, cst.Lambda]


def assignment(node: cst.CSTNode) -> Optional[Tuple[List[cst.BaseExpression], cst.BaseExpression]]:
    """The targets and value of a statement that assigns a value: ``a = b = v`` and
    ``a: T = v`` alike. An annotated assignment binds its target just as a plain one
    does (``self._model: nn.Module = Net().eval()``); an annotation with no value
    binds nothing."""
    kind = type(node)
    if kind is cst.Assign:
        return [t.target for t in node.targets], node.value  # type: ignore[attr-defined]
    if kind is cst.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
        return [node.target], node.value  # type: ignore[attr-defined]
    return None


def self_attribute_values(cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
    """What every ``self.<attr> = ...`` (or ``self.<attr>: T = ...``) in the methods
    of ``cls`` assigns."""
    found: List[cst.BaseExpression] = []
    for node in walk(cls.body, into_functions=True):
        assigned = assignment(node)
        if assigned is not None:
            for tgt in assigned[0]:
                if isinstance(tgt, cst.Attribute) and tgt.attr.value == attr and isinstance(tgt.value, cst.Name) and tgt.value.value == "self":
                    found.append(assigned[1])
    return found
