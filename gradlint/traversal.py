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

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

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


def _learn(node: CSTNode) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    recorder = _FieldRecorder(node)
    node.visit(recorder)
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


def children(node: CSTNode) -> List[CSTNode]:
    """``node.children`` without rebuilding ``node``."""
    out: List[CSTNode] = []
    for name in child_fields(node):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            out.extend(value)
        elif kind not in _NOT_NODES:
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


def scope_metadata(module: cst.Module) -> Mapping[CSTNode, Any]:
    """What ``MetadataWrapper(module).resolve(ScopeProvider)`` gives, in a third of the time.

    ``resolve`` runs each provider inside a batched traversal of the whole tree
    that does nothing but call the provider's ``visit_Module`` (which does the
    work in a traversal of its own): two wasted traversals for scopes, which
    need expression contexts first. Here the two providers' own visitors run
    directly, through :func:`visit`. It relies on how LibCST's providers are
    written; ``FileContext`` falls back to ``resolve`` if that ever changes,
    and a test compares the results.
    """
    from libcst.metadata.expression_context_provider import (
        ExpressionContext,
        ExpressionContextProvider,
        ExpressionContextVisitor,
    )
    from libcst.metadata.scope_provider import ScopeProvider, ScopeVisitor

    contexts = ExpressionContextProvider()
    visit(module, ExpressionContextVisitor(contexts, ExpressionContext.LOAD))
    scopes = ScopeProvider()
    scopes.metadata = {ExpressionContextProvider: contexts._computed}
    visitor = ScopeVisitor(scopes)
    visit(module, visitor)
    visitor.infer_accesses()
    return scopes._computed
