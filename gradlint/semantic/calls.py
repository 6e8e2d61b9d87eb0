"""The file's own functions: who calls them, and which one a call calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import libcst as cst

from gradlint.semantic.frameworks import PER_BATCH_STEPS
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

    def runs_per_step(self, func: cst.FunctionDef) -> bool:
        """Whether ``func`` runs once per step of a loop it does not hold: a method that a
        framework calls for every batch (Lightning's ``training_step``), or a function
        of this file every call of which sits in a loop."""
        cls = self.tree.method_class(func)
        if cls is not None:
            for _framework, bases, base_names, methods in PER_BATCH_STEPS:
                if func.name.value in methods and self.model.modules.derives_from(cls, bases, base_names):
                    return True
        sites = self.call_sites(func)
        return bool(sites) and all(self.tree.enclosing_loop(site) is not None for site in sites)

    def main_block(self) -> Optional[cst.If]:
        """The module's ``if __name__ == "__main__":`` block, when the file is a script."""
        for stmt in self.model.module.body:
            if isinstance(stmt, cst.If) and _is_main_test(stmt.test):
                return stmt
        return None

    def is_script_entry(self, func: cst.FunctionDef) -> bool:
        """Whether ``func`` is a module-level function called only from the script's
        ``__main__`` block, by that block's last statement: what runs after it
        returns is the end of the program."""
        block = self.main_block()
        if block is None or self.tree.enclosing_function(func) is not None or self.tree.method_class(func) is not None:
            return False
        body = block.body.body if isinstance(block.body, cst.IndentedBlock) else ()
        sites = self.call_sites(func)
        if not body or not sites:
            return False
        last = body[-1]
        return all(self.tree.is_inside(last, site) for site in sites)

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


def _is_main_test(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round, either quotes)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    strings = [s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"]
    return len(names) == 1 and len(strings) == 1
