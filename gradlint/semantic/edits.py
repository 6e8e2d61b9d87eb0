"""In-place edits of a function's local tensors, and whether one can reach a read.

``out[:, i] = layer(h)`` or ``buf.add_(x)`` can give a tensor that was made
without history (``torch.zeros(n)``, ``x.detach()``) a graph. An edit counts
for a read only when it may come after a binding that reaches the read: an
edit of an earlier value of the name, replaced by the binding before the read
(``feats[k] = pool(feats[k])`` then ``feats = torch.cat(...).detach()``), does
not touch the value read.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Tuple

import libcst as cst

from gradlint.semantic.bindings import Binding
from gradlint.semantic.syntax import is_inplace_method
from gradlint.semantic.tree import Tree, walk

Edits = Dict[str, Tuple[cst.CSTNode, ...]]


def edits_in(body: cst.CSTNode) -> Edits:
    """Each name of ``body`` (not of the functions nested in it) whose value is
    edited in place, with the nodes that edit it: an item or slice assigned, an
    augmented assignment to one, an in-place method call."""
    found: Dict[str, List[cst.CSTNode]] = {}
    for node in walk(body):
        targets: List[cst.BaseExpression] = []
        # Exact types: LibCST's node classes are abstract, and a failing isinstance() costs
        # a Python-level call on every node of the body (traversal.node_types).
        if type(node) is cst.Assign:
            targets = [t.target.value for t in node.targets if type(t.target) is cst.Subscript]
        elif type(node) is cst.AugAssign and type(node.target) is cst.Subscript:
            targets = [node.target.value]
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and is_inplace_method(node.func.attr.value):
            targets = [node.func.value]
        for target in targets:
            while type(target) is cst.Subscript or type(target) is cst.Attribute:
                target = target.value
            if type(target) is cst.Name:
                found.setdefault(target.value, []).append(node)
    return {name: tuple(nodes) for name, nodes in found.items()}


def may_follow(tree: Tree, edit: cst.CSTNode, bindings: Iterable[Binding]) -> bool:
    """Whether ``edit`` may run after one of ``bindings`` has bound the name: it does
    not when it ends, in the source, before every binding starts, and no loop of the
    function holds both (a loop may run the edit again, on the value bound last
    time round). A binding without a node is taken to be followed."""
    loops = set(map(id, _loops(tree, edit)))
    for b in bindings:
        if b.node is None or not tree.ends_before(edit, b.node):
            return True
        if any(id(loop) in loops for loop in _loops(tree, b.node)):
            return True
    return False


def _loops(tree: Tree, node: cst.CSTNode) -> List[cst.CSTNode]:
    found: List[cst.CSTNode] = []
    loop = tree.enclosing_loop(node)
    while loop is not None:
        found.append(loop)
        loop = tree.enclosing_loop(loop)
    return found
