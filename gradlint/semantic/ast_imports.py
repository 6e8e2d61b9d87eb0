"""A file's module-level imports and dotted names, as Python's ``ast`` reads them:
what the project index's summaries (``semantic.project``) qualify names with.
Only the standard library is used, so that building the index needs no LibCST.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional


def imports(tree: ast.Module, package: str) -> Dict[str, str]:
    """Local name -> the qualified name its module-level import binds."""
    out: Dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    root = a.name.partition(".")[0]
                    out[root] = root
        elif isinstance(node, ast.ImportFrom):
            base = from_base(node, package)
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
    return out


def from_imports(tree: ast.Module, package: str) -> Dict[str, str]:
    """Local name -> the qualified name a module-level ``from ... import`` binds."""
    out: Dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = from_base(node, package)
            for a in node.names:
                if a.name != "*" and base:
                    out[a.asname or a.name] = f"{base}.{a.name}"
    return out


def from_base(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` reads, its relative dots resolved against ``package``."""
    base = node.module or ""
    if node.level:
        parent = package.split(".") if package else []
        parent = parent[: len(parent) - (node.level - 1)] if node.level > 1 else parent
        base = ".".join([*parent, base] if base else parent)
    return base


def star_imports(tree: ast.Module, package: str) -> List[str]:
    """The modules whose every public name a module-level ``from ... import *`` binds."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            out.append(from_base(node, package))
    return sorted(set(out))


def dotted(expr: ast.expr) -> Optional[str]:
    """``a.b.c`` for a name or a chain of attributes on one; None for anything else."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))
