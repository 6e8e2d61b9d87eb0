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

from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

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
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, str):
        return node
    if isinstance(node, cst.Attribute):
        return f"{get_full_name_for_node(node.value)}.{node.attr.value}"
    if isinstance(node, cst.Call):
        return get_full_name_for_node(node.func)
    if isinstance(node, cst.Subscript):
        return get_full_name_for_node(node.value)
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return get_full_name_for_node(node.name)
    if isinstance(node, cst.Decorator):
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

    ``rendered``, when given, receives the rendering's tokens and, for each node of
    the module's header, body and footer in turn, the index of its first token:
    what :func:`top_level_code` makes each one's code of.
    """
    state = _PositionState(module.default_indent, module.default_newline)
    module._codegen(state)
    if rendered is not None:
        rendered[:] = [state.tokens, state.marks]
    return state.spans


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
            starts.append((self.line, self.column))

        def after_codegen(self, node: CSTNode) -> None:
            line, column = self.starts.pop()
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
