"""A read-only walk over a LibCST tree, in the order LibCST's own visitors use.

LibCST's ``node.visit(visitor)`` rebuilds every node it passes, even for a
visitor that changes nothing: ``_visit_and_replace_children`` constructs and
validates a new node from the visited children. On real code that costs as
much as parsing, and six times what a plain walk costs. Rules only read the
tree, so the engine walks it with :func:`walk` instead.

Each node type's child fields, in LibCST's order, are learned once per process
from that type's own ``_visit_and_replace_children`` (through the
``on_visit_attribute`` hook every visitor gets), so the walk stays right when
LibCST adds node types or fields. A field that LibCST skips when it is None
(an f-string's ``format_spec``) is learned the first time it is not. A test
checks that the walk visits the same nodes in the same order as LibCST does.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Tuple

import libcst as cst
from libcst import CSTNode

# type -> (its child fields in visiting order, fields not seen yet because they were None)
_FIELDS: Dict[type, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {}


class _FieldRecorder(cst.CSTVisitor):
    def __init__(self, root: CSTNode) -> None:
        super().__init__()
        self.root = root
        self.fields: List[str] = []

    def on_visit(self, node: CSTNode) -> bool:
        return node is self.root  # the root's children, not theirs

    def on_visit_attribute(self, node: CSTNode, attribute: str) -> None:
        if node is self.root and attribute not in self.fields:
            self.fields.append(attribute)


# LibCST's own visit, for learning a node type's fields.
_LIBCST_VISIT = CSTNode.visit


def _learn(node: CSTNode) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    recorder = _FieldRecorder(node)
    _LIBCST_VISIT(node, recorder)
    fields = tuple(recorder.fields)
    unseen = tuple(
        name
        for name in getattr(type(node), "__dataclass_fields__", ())
        if name not in fields and getattr(node, name) is None
    )
    _FIELDS[type(node)] = (fields, unseen)
    return fields, unseen


def child_fields(node: CSTNode) -> Tuple[str, ...]:
    """The names of ``node``'s fields that hold child nodes, in visiting order."""
    found = _FIELDS.get(type(node))
    if found is None:
        found = _learn(node)
    if found[1] and any(getattr(node, name) is not None for name in found[1]):
        found = _learn(node)
    return found[0]


# A child field holds a node, a sequence of nodes, None or a MaybeSentinel.
# Testing the type against these is several times faster than isinstance()
# against CSTNode, an ABC, and the walk does it for every field of every node.
_NOT_NODES = (type(None), cst.MaybeSentinel)


# Whitespace, comments and line ends: more than half the nodes of a module (41%
# are SimpleWhitespace), none of which any question of gradlint's is about. The
# walks below leave them out; a fix that must keep a comment reads it from the
# field that holds it (``leading_lines``, ``trailing_whitespace``).
TRIVIA = frozenset({cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment})


@functools.lru_cache(maxsize=None)
def node_types(kinds: Tuple[type, ...]) -> FrozenSet[type]:
    """``kinds`` and every subclass of them: ``type(node) in node_types(kinds)`` is
    ``isinstance(node, kinds)``, without the ABC check that ``isinstance()`` makes for
    every LibCST class a node is not (LibCST's nodes are ABCs: a Python-level call per
    miss, millions per lint). The same answer while no subclass is made after the
    call: LibCST makes its classes when imported, gradlint makes none
    (tests/test_known_code.py checks both)."""
    found = set()
    pending = list(kinds)
    while pending:
        kind = pending.pop()
        if kind not in found:
            found.add(kind)
            pending.extend(kind.__subclasses__())
    return frozenset(found)


def children(node: CSTNode) -> List[CSTNode]:
    """``node.children`` without rebuilding ``node``, and without its ``TRIVIA``."""
    out: List[CSTNode] = []
    trivia = TRIVIA
    for name in child_fields(node):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            out.extend([v for v in value if type(v) not in trivia])
        elif kind not in _NOT_NODES and kind not in trivia:
            out.append(value)
    return out


def walk(
    node: CSTNode,
    enter: Callable[[CSTNode, Optional[CSTNode]], None],
    leave: Callable[[CSTNode], None],
    parent: Optional[CSTNode] = None,
) -> None:
    """Call ``enter(node, parent)`` before and ``leave(node)`` after the children of
    every node under ``node`` (itself included), in LibCST's visiting order."""
    enter(node, parent)
    for name in child_fields(node):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for child in value:
                walk(child, enter, leave, node)
        elif kind not in _NOT_NODES:
            walk(value, enter, leave, node)
    leave(node)


def target_names(target: CSTNode) -> Iterator[cst.Name]:
    """The names an assignment target binds: ``a`` and ``b`` in ``a, *b``; none
    for ``x.attr`` or ``x[i]``."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from target_names(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def record_parents(
    root: CSTNode,
    parents: Dict[int, Optional[CSTNode]],
    starts: Dict[int, int],
    ends: Dict[int, int],
    nodes: Optional[List[CSTNode]] = None,
    count: int = 0,
) -> int:
    """Fill ``parents`` (``id(node) -> its parent``) for every node under ``root``
    but ``TRIVIA`` (``root`` itself is left alone): what LibCST's
    ``ParentNodeProvider`` gives, without its three traversals that rebuild the
    tree (a test compares them).

    Fills, from the same walk, ``starts`` (``id(node) -> its index``) and ``ends``
    (``id(node) -> the last index under it``) in visiting order, the numbers the
    engine's walk gives: node A ends before node B starts exactly when
    ``ends[A] < starts[B]``, the order of their source positions, known without
    rendering the module. ``nodes``, when given, receives every node in that order.
    ``count``: the index of ``root`` (its subtree is a part of a larger walk); the
    index after the subtree's last node is returned.
    """
    stack: List[Tuple[CSTNode, bool]] = [(root, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, left = pop()
        if left:
            ends[id(node)] = count - 1
            continue
        starts[id(node)] = count
        count += 1
        if nodes is not None:
            nodes.append(node)
        kids = children(node)
        if not kids:  # a leaf ends where it starts: no second visit to record it
            ends[id(node)] = count - 1
            continue
        push((node, True))
        for child in kids:
            parents[id(child)] = node
        stack.extend((child, False) for child in reversed(kids))
    return count


def visit(node: CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that changes nothing, without rebuilding
    the tree: the same ``on_visit``/``on_visit_attribute``/``on_leave`` calls."""
    if visitor.on_visit(node):
        for name in child_fields(node):
            visitor.on_visit_attribute(node, name)
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    visit(child, visitor)
            elif kind not in _NOT_NODES:
                visit(value, visitor)
            visitor.on_leave_attribute(node, name)
    visitor.on_leave(node)


def get_full_name_for_node(node: Any) -> Optional[str]:
    """``libcst.helpers.get_full_name_for_node``, whose package imports the helpers'
    node-field and template machinery that nothing here uses (a start-up cost)."""
    if type(node) is cst.Name:
        return node.value
    if isinstance(node, str):
        return node
    if type(node) is cst.Attribute:
        return f"{get_full_name_for_node(node.value)}.{node.attr.value}"
    if type(node) is cst.Call:
        return get_full_name_for_node(node.func)
    if type(node) is cst.Subscript:
        return get_full_name_for_node(node.value)
    if type(node) in (cst.FunctionDef, cst.ClassDef):
        return get_full_name_for_node(node.name)
    if type(node) is cst.Decorator:
        return get_full_name_for_node(node.decorator)
    return None


def positions(module: cst.Module, rendered: Optional[List[Any]] = None) -> Dict[int, Tuple[int, int, int, int]]:
    """``id(node) -> (start line, start column, end line, end column)`` for every node:
    what LibCST's ``PositionProvider`` computes, in a quarter of the time.

    ``PositionProvider`` renders the module and, on the way, splits every token
    with a regular expression and builds two ``CodePosition`` objects and a
    ``CodeRange`` per node, kept in a dict keyed by nodes (whose hash is a
    Python call). The same rendering with plain tuples keyed by ``id()`` costs
    a quarter; a test checks that every position agrees.

    The header, body and footer nodes that the last module rendered here also had
    (the same objects: the fix loop's next module keeps the statements a round left
    alone) are not rendered again: their spans are the last rendering's, moved by
    the lines between (see ``_render_reusing``).

    ``rendered``, when given, receives the rendering's tokens and, for each node of
    the module's header, body and footer in turn, the index of its first token:
    what :func:`top_level_code` makes each one's code of.
    """
    previous = _last[0]
    state = _render_reusing(module, previous) if previous is not None else None
    if state is None:
        state = _PositionState(module.default_indent, module.default_newline)
        module._codegen(state)
    _last[0] = _Rendering(module, state) if module.body and module.has_trailing_newline else None
    if rendered is not None:
        rendered[:] = [state.tokens, state.marks]
    return state.spans


class _Rendering:
    """What :func:`positions` keeps of the last module it rendered, for the next one:
    its top-level nodes and, for each and for the end, where its spans start among
    the spans recorded (in the order recorded) and the line and column it starts at."""

    def __init__(self, module: cst.Module, state: Any) -> None:
        self.module = module
        self.nodes = [*module.header, *module.body, *module.footer]
        self.index = {id(node): i for i, node in enumerate(self.nodes)}
        self.state = state
        # Every node entered once and recorded once: no node object stands in two
        # places of the tree, so each top-level node's spans are its own slice.
        self.clean = state.entered == len(state.spans) and len(state.marks) == len(self.nodes)
        self._items: Optional[List[Tuple[int, Tuple[int, int, int, int]]]] = None

    def items(self) -> List[Tuple[int, Tuple[int, int, int, int]]]:
        if self._items is None:
            self._items = list(self.state.spans.items())
        return self._items

    def code(self, i: int) -> str:
        marks, tokens = self.state.marks, self.state.tokens
        return "".join(tokens[marks[i] : marks[i + 1] if i + 1 < len(marks) else len(tokens)])


_last: List[Optional[_Rendering]] = [None]


def _render_reusing(module: cst.Module, old: _Rendering) -> Any:
    """The rendering :func:`positions` makes of ``module``, with the spans of the
    top-level nodes that ``old``'s module also had taken from ``old``; None where
    that cannot be told (then render it all).

    A top-level node starts at column 0 with no indentation (the one before it ended
    with its line), so rendering it gives the same tokens and the same spans, moved
    by the lines it is moved by, given the same default indentation and newline.
    Its spans are the ones recorded while it rendered, a slice of the old spans in
    the order recorded, where every node was recorded once (``_Rendering.clean``),
    and the new rendering must be as clean: the spans of a node object that stood
    in two places would depend on which came first."""
    if not (old.clean and module.body and module.has_trailing_newline):
        return None
    if (module.default_indent, module.default_newline) != (old.module.default_indent, old.module.default_newline):
        return None
    ostate = old.state
    olines, ocolumns, omarks = ostate.lines, ostate.columns, ostate.span_marks
    state = _PositionState(module.default_indent, module.default_newline)
    state.before_codegen(module)
    reused = 0
    at, onodes = old.index, old.nodes
    for node in (*module.header, *module.body, *module.footer):
        i = at.get(id(node))
        if i is None or onodes[i] is not node or state.column or ocolumns[i] or ocolumns[i + 1]:
            node._codegen(state)
            continue
        # What ``before_codegen`` records for a top-level node, then its rendering's effect.
        state.marks.append(len(state.tokens))
        state.span_marks.append(len(state.spans))
        state.lines.append(state.line)
        state.columns.append(0)
        state.tokens.append(old.code(i))
        items = old.items()[omarks[i] : omarks[i + 1]]
        moved = state.line - olines[i]
        if moved:
            state.spans.update([(k, (a + moved, b, c + moved, d)) for k, (a, b, c, d) in items])
        else:
            state.spans.update(items)
        reused += len(items)
        state.line += olines[i + 1] - olines[i]
    state.after_codegen(module)
    state.entered += reused  # as if rendered: the next module may take from this rendering
    if len(state.spans) != state.entered:
        return None
    return state


def top_level_code(module: cst.Module, rendered: List[Any]) -> Optional[Dict[int, Tuple[CSTNode, str]]]:
    """``id(node) -> (node, its code)`` for each node of ``module``'s header, body and
    footer, cut from the tokens of a rendering of ``module`` (``positions(module,
    rendered)``): the code ``module.code_for_node`` gives each, since the module
    renders them one after the other with one state and no indentation. None where
    the rendering does not split so (a module without a final newline drops its last
    token, an empty one adds one)."""
    tokens, marks = rendered
    nodes = [*module.header, *module.body, *module.footer]
    if len(marks) != len(nodes) or not module.body or not module.has_trailing_newline:
        return None
    bounds = [*marks, len(tokens)]
    return {id(node): (node, "".join(tokens[bounds[i] : bounds[i + 1]])) for i, node in enumerate(nodes)}


def _position_state() -> type:
    import re

    # LibCST's PositionProvidingCodegenState lives in libcst.metadata, whose
    # __init__ imports every metadata provider (scopes, names, type inference): a
    # tenth of LibCST's import. Its base, which the nodes' code generation calls,
    # is enough; what the provider's state adds (line and column) is kept here.
    from libcst._nodes.internal import CodegenState

    newline = re.compile(r"\r\n?|\n")  # libcst.metadata.position_provider.NEWLINE_RE

    class PositionState(CodegenState):
        def __init__(self, default_indent: str, default_newline: str) -> None:
            # No provider: the positions are recorded here, in ``spans``, not as metadata.
            super().__init__(default_indent=default_indent, default_newline=default_newline, provider=None)
            self.line = 1  # one-indexed, as LibCST's positions
            self.column = 0
            self.spans: Dict[int, Tuple[int, int, int, int]] = {}
            self.starts: List[Tuple[int, int]] = []
            # Where each node the module renders itself (header, body, footer) starts,
            # as an index into ``tokens``: those are the nodes entered with only the
            # module entered before them.
            self.marks: List[int] = []
            # For each of those nodes and for the end of the last: how many spans were
            # recorded before it, and the line and column it starts at (``_Rendering``).
            self.span_marks: List[int] = []
            self.lines: List[int] = []
            self.columns: List[int] = []
            self.entered = 0  # nodes rendered

        def add_indent_tokens(self) -> None:
            self.tokens.extend(self.indent_tokens)
            for token in self.indent_tokens:
                self._update_position(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            self._update_position(value)

        def _update_position(self, value: str) -> None:
            if "\n" in value or "\r" in value:
                segments = newline.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(value)

        def before_codegen(self, node: CSTNode) -> None:
            starts = self.starts
            if len(starts) == 1:
                self.marks.append(len(self.tokens))
                self._mark()
            starts.append((self.line, self.column))
            self.entered += 1

        def _mark(self) -> None:
            self.span_marks.append(len(self.spans))
            self.lines.append(self.line)
            self.columns.append(self.column)

        def after_codegen(self, node: CSTNode) -> None:
            line, column = self.starts.pop()
            if not self.starts:
                self._mark()  # the module's end
            if id(node) not in self.spans:  # a syntactic position was recorded: it wins
                self.spans[id(node)] = (line, column, self.line, self.column)

        def record_syntactic_position(self, node: CSTNode, *, start_node: Optional[CSTNode] = None, end_node: Optional[CSTNode] = None) -> "_Syntactic":  # type: ignore[override]  # any context manager does; LibCST types its own generator-based one
            # What LibCST's generator-based context manager does, as a plain object: it is
            # entered about once per node, and a generator costs several calls each time
            # (a third of the rendering, profiled on 20,000 lines).
            return _Syntactic(self, node, start_node, end_node)

    return PositionState


class _Syntactic:
    """``PositionState.record_syntactic_position``: the node's span is where the
    rendering stood on entering and on leaving, or the start of ``start_node`` and
    the end of ``end_node`` where given; recorded also when rendering raises."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: Any, node: CSTNode, start_node: Optional[CSTNode], end_node: Optional[CSTNode]) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc: Any) -> None:
        state = self.state
        start: Tuple[int, int] = self.start
        end = (state.line, state.column)
        if self.start_node is not None:
            start = state.spans[id(self.start_node)][:2]
        if self.end_node is not None:
            end = state.spans[id(self.end_node)][2:]
        state.spans[id(self.node)] = (*start, *end)


class _LazyPositionState:
    """Builds the state class once, on first use."""

    cls: Optional[type] = None

    def __call__(self, default_indent: str, default_newline: str) -> Any:
        if _LazyPositionState.cls is None:
            _LazyPositionState.cls = _position_state()
        return _LazyPositionState.cls(default_indent, default_newline)


_PositionState = _LazyPositionState()
