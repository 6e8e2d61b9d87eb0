"""Who reads an attribute, and what may set ``requires_grad`` on parameters.

Two facts the freezing rules' fixes rest on (a module's `requires_grad` attribute, and its misspellings), stated by what
the code does rather than how one spelling looks:

- ``reads(attr)``: every place that may read attribute ``attr`` of some
  object: ``x.attr`` (also as the target of ``x.attr += ...``),
  ``getattr(x, "attr")``, ``hasattr(x, "attr")``,
  ``operator.attrgetter("attr")``; and the places that read every attribute
  at once (``vars(x)``, ``x.__dict__``, ``getattr(x, name)`` with a name
  that is not a constant), which read ``attr`` too.
- ``unfreezes_nothing(expr)``: whether every parameter of the module
  ``expr`` names is proven to require grad wherever the code uses it: the
  module was built by a library factory (whose parameters require grad),
  nothing in the file sets ``requires_grad`` to anything but ``True``, and
  the module object is used only in ways that leave its parameters and
  attributes alone (its forward, its own ``.to()``/``.eval()``...,
  ``.parameters()``); handed to any other callee, returned, aliased or
  stored, it may be frozen or read by code this file does not show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

_GETTERS = frozenset({"getattr", "hasattr", "inspect.getattr_static"})
_ATTRGETTER = frozenset({"operator.attrgetter"})
# Members of a module object whose use leaves its parameters' ``requires_grad``
# and its ``__dict__`` alone: the chain methods return the module itself, the
# rest hand out parameters or run the forward of a library module.
_HARMLESS_MEMBERS = frozenset(
    "to cuda cpu eval train half float double bfloat16 parameters named_parameters buffers "
    "named_buffers state_dict zero_grad forward training".split()
)
# Builtins that read neither the parameters' flags nor the instance dictionary.
_HARMLESS_CALLS = frozenset({"print", "len", "id", "type", "isinstance", "repr", "str"})


@dataclass(frozen=True)
class AttributeRead:
    node: cst.CSTNode
    receiver: Optional[cst.BaseExpression]  # None: the object is not known (``attrgetter``)
    kind: str  # "attribute", "getattr", "hasattr", "attrgetter", "all" (``vars``, ``__dict__``, dynamic ``getattr``)


class Attributes:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._reads: Dict[str, List[AttributeRead]] = {}
        self._all: Optional[List[AttributeRead]] = None
        self._sets_flag: Optional[bool] = None

    # -- reads ---------------------------------------------------------------------------

    def reads(self, attr: str, named_only: bool = False) -> List[AttributeRead]:
        """Every read of ``attr`` in the file; with ``named_only``, the reads that name
        it (leaving out ``vars(x)``, ``x.__dict__`` and dynamic ``getattr``)."""
        if attr not in self._reads:
            self._reads[attr] = self._named_reads(attr)
        found = list(self._reads[attr])
        if not named_only:
            found += self._all_reads()
        return found

    def _named_reads(self, attr: str) -> List[AttributeRead]:
        found: List[AttributeRead] = []
        if attr not in self.model.source:
            return found
        for node in walk(self.model.module, into_functions=True):
            if isinstance(node, cst.Attribute) and node.attr.value == attr:
                parent = self.tree.parent(node)
                if isinstance(parent, cst.AssignTarget) and parent.target is node:
                    continue  # a store; ``x.attr += v`` reads it first and is kept
                if isinstance(parent, cst.Del):
                    continue
                found.append(AttributeRead(node, node.value, "attribute"))
            elif isinstance(node, cst.Call) and node.args:
                names = self.model.names
                if names.is_call_to(node, _GETTERS) or _builtin_call(node, ("getattr", "hasattr")):
                    key = call_arg(node, 1, None)
                    if key is not None and _string(key.value) == attr:
                        kind = "hasattr" if _builtin_call(node, ("hasattr",)) else "getattr"
                        found.append(AttributeRead(node, node.args[0].value, kind))
                elif names.is_call_to(node, _ATTRGETTER):
                    if any(_string(a.value) in (attr,) or (_string(a.value) or "").startswith(attr + ".") for a in node.args):
                        found.append(AttributeRead(node, None, "attrgetter"))
        return found

    def _all_reads(self) -> List[AttributeRead]:
        if self._all is None:
            found: List[AttributeRead] = []
            source = self.model.source
            if any(word in source for word in ("vars", "__dict__", "getattr")):
                for node in walk(self.model.module, into_functions=True):
                    if isinstance(node, cst.Attribute) and node.attr.value == "__dict__":
                        found.append(AttributeRead(node, node.value, "all"))
                    elif isinstance(node, cst.Call) and node.args:
                        if _builtin_call(node, ("vars",)):
                            found.append(AttributeRead(node, node.args[0].value, "all"))
                        elif _builtin_call(node, ("getattr", "hasattr")) or self.model.names.is_call_to(node, _GETTERS):
                            key = call_arg(node, 1, None)
                            if key is None or _string(key.value) is None:
                                found.append(AttributeRead(node, node.args[0].value, "all"))
            self._all = found
        return self._all

    # -- the parameters' requires_grad ----------------------------------------------------

    def sets_requires_grad(self) -> bool:
        """Whether anything in the file may set some tensor's ``requires_grad`` to a value
        that is not the literal ``True``: ``x.requires_grad = v``, ``x.requires_grad_(v)``,
        ``requires_grad=v`` given to a constructor, ``setattr(x, "requires_grad", v)``.
        An assignment to an evident module's attribute sets no parameter and is left out."""
        if self._sets_flag is None:
            self._sets_flag = False
            if "requires_grad" in self.model.source:
                for node in walk(self.model.module, into_functions=True):
                    if self._sets_flag_at(node):
                        self._sets_flag = True
                        break
        return self._sets_flag

    def _sets_flag_at(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                for t in walk(target) if not isinstance(target, cst.Attribute) else [target]:
                    if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                        if isinstance(node, cst.Assign) and bool_value(node.value) is True:
                            continue
                        if self.model.modules.is_module(t.value):
                            continue
                        return True
            return False
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
                arg = call_arg(node, 0, "requires_grad")
                return arg is not None and bool_value(arg.value) is not True
            if _builtin_call(node, ("setattr",)):
                key = call_arg(node, 1, None)
                return key is None or _string(key.value) in (None, "requires_grad")
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "requires_grad" and bool_value(arg.value) is not True:
                    return True
                if arg.star == "**":
                    return True  # ``requires_grad=`` may be among them
        return False

    def unfreezes_nothing(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr.requires_grad_(True)`` is proven to change no parameter's flag and
        nothing reads the instance dictionary it leaves unchanged (see the module doc)."""
        if not isinstance(expr, cst.Name) or self.sets_requires_grad():
            return False
        if not self._trainable_origin(expr, 0):
            return False
        scope = self.tree.function_scope(expr)
        for node in walk(scope, into_functions=True):
            if isinstance(node, cst.Name) and node.value == expr.value and not self._harmless_use(node):
                return False
        return True

    def _trainable_origin(self, expr: cst.BaseExpression, depth: int) -> bool:
        """Built by a library factory whose parameters all require grad (an ``nn.*``
        constructor, a torchvision/timm/transformers model), possibly through its own
        ``.to()``/``.eval()``... A class of the file, a copy, a loaded or passed-in
        module may hold frozen parameters."""
        if depth > bounds.EXPRESSION_STEPS:
            return False
        if isinstance(expr, cst.Name):
            b = self.model.scopes.reaching_binding(expr)
            return b is not None and b.kind == "assign" and b.form == "assign" and b.value is not None and self._trainable_origin(b.value, depth + 1)
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in _HARMLESS_MEMBERS and func.attr.value not in (
            "parameters", "named_parameters", "buffers", "named_buffers", "state_dict", "forward", "zero_grad", "training"
        ):
            return self._trainable_origin(func.value, depth + 1)
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
        from gradlint.semantic.torch_api import MODEL_PACKAGES, is_module_factory

        names = self.model.names.qualnames_in(func, MODEL_PACKAGES)
        # ``torch.hub.load`` runs a repository's code, which may freeze what it builds.
        return any(is_module_factory(q) and not q.startswith("torch.hub.") for q in names)

    def _harmless_use(self, name: cst.Name) -> bool:
        parent = self.tree.parent(name)
        if isinstance(parent, cst.Attribute) and parent.value is name:
            holder = self.tree.parent(parent)
            if isinstance(holder, cst.AssignTarget) and holder.target is parent:
                return True  # ``m.requires_grad = ...``, ``m.fc = nn.Linear(...)``
            if parent.attr.value in _HARMLESS_MEMBERS:
                return isinstance(holder, cst.Call) and holder.func is parent or parent.attr.value == "training"
            return False
        if isinstance(parent, cst.Call) and parent.func is name:
            return True  # the forward of a library module
        if isinstance(parent, cst.Arg):
            call = self.tree.parent(parent)
            return isinstance(call, cst.Call) and _builtin_call(call, tuple(_HARMLESS_CALLS))
        if isinstance(parent, cst.AssignTarget) and parent.target is name:
            return True  # the binding itself: its value is checked by the origin
        return False


def _builtin_call(call: cst.Call, names: Tuple[str, ...]) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value in names


def _string(expr: cst.BaseExpression) -> Optional[str]:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None
