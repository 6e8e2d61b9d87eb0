"""The file's own functions: who calls them, and which one a call calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import libcst as cst

from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


class Calls:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._refs: Optional[Tuple[Dict[str, List[cst.Name]], Dict[str, List[cst.Attribute]]]] = None

    def references(self) -> Tuple[Dict[str, List[cst.Name]], Dict[str, List[cst.Attribute]]]:
        """Every load of a name, and every ``x.attr`` access by attribute name."""
        if self._refs is None:
            names: Dict[str, List[cst.Name]] = {}
            attrs: Dict[str, List[cst.Attribute]] = {}
            parent_of = self.tree.parent
            for node in walk(self.model.module, into_functions=True):
                if isinstance(node, cst.Attribute):
                    attrs.setdefault(node.attr.value, []).append(node)
                elif isinstance(node, cst.Name):
                    parent = parent_of(node)
                    if isinstance(parent, cst.Attribute) and parent.attr is node:
                        continue
                    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.AsName)):
                        continue
                    if isinstance(parent, cst.Arg) and parent.keyword is node:
                        continue
                    names.setdefault(node.value, []).append(node)
            self._refs = (names, attrs)
        return self._refs

    def call_sites(self, func: cst.FunctionDef) -> Optional[List[cst.Call]]:
        """The calls of ``func`` in this module: ``f(...)`` for a function,
        ``<anything>.f(...)`` for a method. None when ``func`` is also used some
        other way (passed as a callback, stored), so that its callers are unknown."""
        names, attrs = self.references()
        name = func.name.value
        is_method = self.tree.method_class(func) is not None
        refs = attrs.get(name, []) if is_method else names.get(name, [])
        sites = []
        for ref in refs:
            parent = self.tree.parent(ref)
            if not (isinstance(parent, cst.Call) and parent.func is ref):
                return None
            sites.append(parent)
        return sites

    def local_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The function of this file that ``call`` calls: ``f(...)`` for a ``def f``
        that every binding reaching the call (or, from a nested function, every
        binding of the enclosing scopes) is, ``self.f(...)`` for a method of the
        enclosing class."""
        func = call.func
        if isinstance(func, cst.Name):
            if func.value not in self.model.names.index.defined:
                return None  # no ``def`` of that name anywhere in the file
            scopes = self.model.scopes
            seen = scopes.visible(func.value, call)
            defs = [b.node for b in seen.bindings if b.form == "def"]
            if len(defs) == 1 and len(seen.bindings) == 1 and not seen.unbound:
                return defs[0]  # type: ignore[return-value]
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            cls = self.tree.enclosing_class(call)
            if cls is not None:
                for stmt in cls.body.body:
                    if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.attr.value:
                        return stmt
        return None
