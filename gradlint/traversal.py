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

from typing import Callable, Dict, List, Optional, Tuple

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
    fields, unseen = found
    if unseen and any(getattr(node, name) is not None for name in unseen):
        fields, _ = _learn(node)
    return fields


def children(node: CSTNode) -> List[CSTNode]:
    """``node.children`` without rebuilding ``node``."""
    out: List[CSTNode] = []
    for name in child_fields(node):
        value = getattr(node, name)
        if isinstance(value, CSTNode):
            out.append(value)
        elif isinstance(value, (tuple, list)):
            out.extend(value)
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
        if isinstance(value, CSTNode):
            walk(value, enter, leave, node)
        elif isinstance(value, (tuple, list)):
            for child in value:
                walk(child, enter, leave, node)
    leave(node)
