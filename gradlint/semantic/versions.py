"""Code that runs only on an old torch: the branch of a version check.

Code bases that straddled PyTorch 0.3 and 0.4 kept both spellings behind a
check of ``torch.__version__``::

    IS_TORCH_04 = LooseVersion(torch.__version__) >= LooseVersion('0.4')
    ...
    if IS_TORCH_04: x = Variable(T(x), requires_grad=requires_grad)
    else:           x = Variable(T(x), requires_grad=requires_grad, volatile=volatile)

``runs_only_before(model, node, (0, 4))`` says whether ``node`` lies in a branch
that runs only on torch older than that version: the test is such a comparison
(or a name bound once, at module level, to one; or ``not`` of either) between
something that reads ``torch.__version__`` and a version string.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional, Tuple

import libcst as cst

from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

Version = Tuple[int, ...]
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)")


def runs_only_before(model: "SemanticModel", node: cst.CSTNode, version: Version) -> bool:
    child, parent = node, model.tree.parent(node)
    while parent is not None:
        if type(parent) is cst.If and child is not parent.test:
            holds = _old_when(model, parent.test, version, 0)
            if holds is not None:
                in_body = child is parent.body
                if in_body == holds:
                    return True
        child, parent = parent, model.tree.parent(parent)
    return False


def _old_when(model: "SemanticModel", test: cst.BaseExpression, version: Version, depth: int) -> Optional[bool]:
    """True: the test holds only on torch older than ``version``; False: it fails only
    there; None: neither is shown."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _old_when(model, test.expression, version, depth)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and depth == 0:
        bindings = model.scopes.bindings(model.module).get(test.value, [])
        if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
            return _old_when(model, bindings[0].value, version, 1)
        return None
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    op = test.comparisons[0].operator
    left, right = test.left, test.comparisons[0].comparator
    if _reads_torch_version(model, right) and not _reads_torch_version(model, left):
        left, right = right, left
        op = {cst.GreaterThanEqual: cst.LessThanEqual(), cst.GreaterThan: cst.LessThan(),
              cst.LessThanEqual: cst.GreaterThanEqual(), cst.LessThan: cst.GreaterThan()}.get(type(op), op)
    if not _reads_torch_version(model, left):
        return None
    bound = _version_literal(right)
    if bound is None:
        return None
    # `v >= b` / `v > b` fail only below `version` when `b` is at most `version`;
    # `v < b` / `v <= b` hold only below it then.
    if isinstance(op, (cst.GreaterThanEqual, cst.GreaterThan)) and bound <= version:
        return False
    if isinstance(op, cst.LessThan) and bound <= version:
        return True
    return None


def _reads_torch_version(model: "SemanticModel", expr: cst.BaseExpression) -> bool:
    for n in walk(expr):
        if isinstance(n, cst.Attribute) and n.attr.value == "__version__":
            if model.names.qualnames_in(n, frozenset({"torch"})) & {"torch.__version__"}:
                return True
    return False


def _version_literal(expr: cst.BaseExpression) -> Optional[Version]:
    for n in walk(expr):
        if isinstance(n, cst.SimpleString):
            m = _VERSION.match(str(n.evaluated_value))
            if m:
                return int(m.group(1)), int(m.group(2))
    return None
