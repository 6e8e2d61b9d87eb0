"""What importing a module of the project does to grad mode: a module whose body
runs ``torch.set_grad_enabled(False)`` (a conversion script's helpers,
``torch2coreml.py``) switches gradients off for the whole process when it is
first imported, so a file that imports it at module level runs with gradients
off unless it turns them on again. A project index fact (``semantic.project``),
read with Python's ``ast``.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, Iterable, Mapping, Protocol, Sequence

from gradlint.semantic import ast_imports


class _Index(Protocol):
    """What this module asks of ``project.Project`` (which imports this module)."""

    @property
    def summaries(self) -> Mapping[str, Mapping[str, Any]]: ...

    def module_files(self, module: str, origin: str) -> Sequence[str]: ...


def summary_entry(tree: ast.Module) -> Dict[str, bool]:
    """``{"grad_off": True}`` when a top-level statement of the module (not under
    ``if __name__ == "__main__":``, which an import does not run) is
    ``set_grad_enabled(False)``; else nothing."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            name = (ast_imports.dotted(call.func) or "").rpartition(".")[2]
            if name == "set_grad_enabled" and len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and call.args[0].value is False:
                return {"grad_off": True}
    return {}


def valid(summary: Mapping[str, Any]) -> bool:
    return isinstance(summary.get("grad_off", False), bool)


def imports_grad_off(index: _Index, imported: Iterable[str], origin: str) -> bool:
    """Whether one of the qualified names a file imports at module level
    (``pkg.torch2coreml.compute_psnr``) is, or is in, a module of ``origin``'s
    project whose body switches gradients off."""
    for qualname in imported:
        parts = qualname.split(".")
        for n in range(len(parts), 0, -1):
            if any(index.summaries[p].get("grad_off") for p in index.module_files(".".join(parts[:n]), origin)):
                return True
    return False
