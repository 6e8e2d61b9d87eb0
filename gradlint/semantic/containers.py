"""Models kept in a container and switched or run item by item.

``for k in models: models[k].eval()``, ``for m in models.values(): m.eval()``
and ``for name, m in models.items(): m.eval()`` put every item of ``models`` in
eval mode; the model is then named ``models[]`` (any item). A later
``models[k](x)``, or ``m(x)`` for ``m`` bound by such a loop over the same
container (``for name, m in models.items(): pred = m.forward(img)``), runs one
of those items; ``m.train()`` in such a loop takes them out again.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Iterator, Optional, Protocol

import libcst as cst

from gradlint.semantic.syntax import chain_base, is_model_ref

if TYPE_CHECKING:
    from gradlint.semantic.scopes import Scopes
    from gradlint.semantic.tree import Tree

    class _Switches(Protocol):  # ``Modules``, which imports this module
        tree: Tree

        def eval_switch(self, stmt: cst.CSTNode) -> Any: ...


def _iterated(loop: "cst.For | cst.CompFor", name: cst.Name) -> Optional[cst.BaseExpression]:
    """The container whose items ``loop`` binds to ``name`` (a name of its target):
    ``models`` for ``for m in models``, ``for m in models.values()`` and the second
    name of ``for k, m in models.items()``."""
    it, target = loop.iter, loop.target
    if type(it) is cst.Call and type(it.func) is cst.Attribute and not it.args and it.func.attr.value in ("values", "items"):
        container = it.func.value
        if it.func.attr.value == "items":
            pair = target.elements if type(target) is cst.Tuple or type(target) is cst.List else ()
            if len(pair) != 2 or pair[1].value is not name:
                return None
        elif target is not name:
            return None
    elif target is name:
        container = it
    else:
        return None
    return container if is_model_ref(container) and type(container) is not cst.Subscript else None


def container_item(tree: "Tree", scopes: "Scopes", ref: cst.BaseExpression) -> Optional[str]:
    """``models[]`` when the name ``ref`` holds an item of the container ``models``
    wherever it is read here: every binding that reaches it is the target of a
    ``for`` loop over ``models`` (its items, ``.values()`` or ``.items()``)."""
    if type(ref) is not cst.Name:
        return None
    reaching = scopes.reaching(ref)
    if not reaching.bindings or reaching.unbound:
        return None
    found = set()
    for b in reaching.bindings:
        # a ``for`` statement or a comprehension's (``[m(x) for m in self.models]``)
        if b.form != "for" or not isinstance(b.node, (cst.For, cst.CompFor)) or type(b.name) is not cst.Name:
            return None
        container = _iterated(b.node, b.name)
        if container is None:
            return None
        found.add(tree.code_for(container) + "[]")
    return found.pop() if len(found) == 1 else None


def container_eval_switch(modules: "_Switches", loop: cst.CSTNode) -> Any:
    """If ``loop`` puts every item of a container in eval mode (``for k in models:
    models[k].eval()``, ``for m in models.values(): m.eval()``), that switch (an
    ``EvalSwitch``); its ``model`` is ``models[]`` (any item)."""
    if not (type(loop) is cst.For and type(loop.body) is cst.IndentedBlock):
        return None
    for stmt in loop.body.body:
        switch = modules.eval_switch(stmt)
        if switch is None:
            continue
        base = chain_base(switch.call)
        if type(base) is cst.Subscript and len(base.slice) == 1 and type(loop.target) is cst.Name:
            key = base.slice[0].slice
            if type(key) is cst.Index and type(key.value) is cst.Name and key.value.value == loop.target.value:
                return dataclasses.replace(switch, model=modules.tree.code_for(base.value) + "[]")
        if type(base) is cst.Name:
            container = next((c for c in _names_of(loop.target) if c.value == base.value), None)
            items = _iterated(loop, container) if container is not None else None
            if items is not None:
                return dataclasses.replace(switch, model=modules.tree.code_for(items) + "[]")
    return None


def _names_of(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if type(target) is cst.Name:
        yield target
    elif type(target) is cst.Tuple or type(target) is cst.List:
        for e in target.elements:
            yield from _names_of(e.value)
