"""GL004 volatile-attribute: ``x.volatile`` is always False since PyTorch 0.4."""

from __future__ import annotations

import libcst as cst

from gradlint.rule import Rule

# Receivers that are configuration objects far more often than tensors.
_NOT_TENSORS = frozenset(
    {"self", "cls", "args", "opt", "opts", "options", "cfg", "config", "conf", "hparams", "hp", "params",
     "settings", "flags", "FLAGS", "parser", "ns", "namespace"}
)


class VolatileAttribute(Rule):
    code = "GL004"
    triggers = (".volatile",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._in_import = 0
        self._uses_torch = "torch" in ctx.source

    def visit_Import(self, node: cst.Import) -> None:
        self._in_import += 1

    def leave_Import(self, node: cst.Import) -> None:
        self._in_import -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import += 1

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "volatile" or self._in_import or not self._uses_torch:
            return
        root = node.value
        while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
            root = root.value if not isinstance(root, cst.Call) else root.func
        if isinstance(root, cst.Name) and root.value in _NOT_TENSORS:
            return
        if self.ctx.semantic.names.is_imported(node.value):
            return  # a module or class imported by name, not a tensor
        parent = self.ctx.parent(node)
        writes = (isinstance(parent, cst.AssignTarget) and parent.target is node) or (
            isinstance(parent, cst.AugAssign) and parent.target is node
        )
        self.report(node, receiver=self.ctx.code_for(node.value), access="Setting" if writes else "Reading")
