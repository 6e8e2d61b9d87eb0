"""``self.m()`` or ``super().m()`` of a method whose class inherits ``m``: the
attribute of ``self`` the base's ``m`` leaves in eval mode
(``semantic.ast_eval_methods``), for the bases of the file and of the project
index. A method of the class's own body is asked of ``semantic.modules``, which
follows deeper calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, List, Mapping, Optional, Tuple

import libcst as cst

from gradlint.semantic import ast_eval_methods, bounds
from gradlint.semantic.syntax import dotted

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


def inherited_leaves_in_eval(model: "SemanticModel", call: cst.Call, untrained: bool = False) -> Optional[str]:
    """For ``self.m(...)`` where the enclosing class does not define ``m``, or for
    ``super().m(...)``: ``self.<attr>`` when the ``m`` a base class defines (of the
    file, or of the project index) leaves that attribute in eval mode; when
    ``untrained``, only if no method of that base may train it again."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    receiver, name = func.value, func.attr.value
    through_super = isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super" and not receiver.args
    if not through_super and not (isinstance(receiver, cst.Name) and receiver.value == "self"):
        return None
    method = model.tree.enclosing_function(call)
    if method is None or not method.params.params or method.params.params[0].name.value != "self":
        return None
    owner = model.tree.enclosing_class(method)
    if owner is None or model.tree.parent(owner) is not model.module or not any(a.keyword is None for a in owner.bases):
        return None  # a nested class, or one without a base
    if not through_super and any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in owner.body.body):
        return None  # its own method, asked of ``semantic.modules``
    # Asked of every ``self.m()`` statement: the file is read with ``ast`` only when
    # one of its classes may switch a mode, the index only for a method it knows.
    local = ".eval(" in model.source or ".train(" in model.source
    if not local and (model.project is None or name not in _index_methods(model.project)):
        return None
    classes = ast_eval_methods.file_classes(model.source) if local else {}
    attrs, trained = _in_bases(model, classes, owner.name.value, name, 0)
    attrs = [a for a in attrs if not untrained or not {a, "*"} & set(trained)]
    return f"self.{attrs[0]}" if attrs else None


_Classes = Mapping[str, Tuple[Dict[str, List[str]], List[str], List[str]]]


def _in_bases(model: "SemanticModel", classes: _Classes, cls: str, name: str, depth: int) -> Tuple[List[str], List[str]]:
    """What ``name`` of the first base of ``cls`` that defines it leaves in eval mode,
    and what that base's methods may train again."""
    node = next((s for s in model.module.body if isinstance(s, cst.ClassDef) and s.name.value == cls), None)
    if node is None or depth > bounds.PROJECT_BASE_LEVELS:
        return [], []
    for arg in node.bases:
        if arg.keyword is not None:
            continue
        key = dotted(arg.value)
        if key is not None and key in classes:
            methods, _, trained = classes[key]
            if name in methods:
                return methods[name], trained
            found = _in_bases(model, classes, key, name, depth + 1)
            if found[0]:
                return found
            continue
        index = model.project
        if index is None or not isinstance(arg.value, (cst.Name, cst.Attribute)):
            return [], []
        for qualname in model.names.qualnames(arg.value):
            found = ast_eval_methods.index_fact(index, qualname, model.path, name)
            if found[0]:
                return found
        return [], []  # a base of another file that does not switch in ``name``: unknown beyond it
    return [], []


_INDEX_METHODS: Dict[int, Tuple[object, FrozenSet[str]]] = {}


def _index_methods(index: object) -> FrozenSet[str]:
    """The names of the index's methods that leave an attribute in eval mode."""
    cached = _INDEX_METHODS.get(id(index))
    if cached is None or cached[0] is not index:
        summaries = getattr(index, "summaries", {})
        names = frozenset(m for s in summaries.values() for c in s.get(ast_eval_methods.KEY, {}).values() for m in c)
        _INDEX_METHODS.clear()  # one index per run: keep none alive past it
        cached = _INDEX_METHODS[id(index)] = (index, names)
    return cached[1]
