"""What evidently holds no autograd history: tensor factories, ``.detach()``,
batches drawn from a DataLoader loop, and the loops that yield them.

The lowest layer of ``values.Values``: it asks only the scopes and the import
index, so that the abstract values (``kinds``) and the graph evidence
(``graph``) built on it can ask it in turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, FrozenSet

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.scopes import Binding
from gradlint.semantic.syntax import last_name
from gradlint.semantic.torch_api import CONVERSIONS, DATALOADER, LOADER_NAME, NO_GRAPH_CALLS

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

# ``Tensor.new*`` methods: a new tensor of the receiver's dtype and device, built from
# sizes, a value or data copied without history (``new_tensor`` detaches).
_NEW_TENSOR_METHODS = frozenset({"new", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"})


class NoGraph:
    """Batches, loaders and fresh tensors (the first layer of ``values.Values``)."""

    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree

    # -- no graph: factories, batches, loaders ----------------------------------------------

    def carries_no_graph(
        self, expr: cst.BaseExpression, scope: cst.CSTNode, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` evidently holds no autograd history: a tensor factory call,
        ``torch.from_numpy``, a DataLoader batch, ``.detach()``, a legacy ``Variable(...)``
        (which detaches), or shape/dtype/device conversions of those, followed through
        simple assignments (``x = x.cuda()`` included)."""
        if _depth > bounds.EXPRESSION_STEPS:
            return False
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, (cst.Name, cst.Attribute)) and self.model.names.refers_to(func, NO_GRAPH_CALLS):
                return True
            if isinstance(func, cst.Attribute):
                if func.attr.value == "detach":
                    return True
                if func.attr.value in _NEW_TENSOR_METHODS and not self.model.names.is_imported(func.value):
                    return True  # ``x.new(n).zero_()``, ``x.new_zeros(n)``: a fresh tensor, no history
                if func.attr.value in CONVERSIONS:
                    return self.carries_no_graph(func.value, scope, _depth + 1, _visiting)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_batch(expr.value, scope, _depth + 1, _visiting)
        if isinstance(expr, cst.Name):
            if expr.value in _visiting:
                return True  # x = x.cuda(): the other bindings of x decide
            binds = self.model.scopes.bindings(scope).get(expr.value)
            if not binds:
                return False
            visiting = _visiting | {expr.value}
            return all(self._binding_free(b, scope, _depth + 1, visiting) for b in binds)
        return False

    def is_batch(
        self, expr: cst.BaseExpression, scope: cst.CSTNode, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` is (part of) a batch drawn from a DataLoader loop."""
        if _depth > bounds.EXPRESSION_STEPS:
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_batch(expr.value, scope, _depth + 1, _visiting)
        if isinstance(expr, cst.Name):
            if expr.value in _visiting:
                return True
            binds = self.model.scopes.bindings(scope).get(expr.value) or []
            visiting = _visiting | {expr.value}
            return bool(binds) and all(self._binding_free(b, scope, _depth + 1, visiting) for b in binds)
        return False

    def _binding_free(self, b: Binding, scope: cst.CSTNode, depth: int, visiting: FrozenSet[str]) -> bool:
        if b.value is None or b.form in ("aug", "with", "except", "annotation"):
            return False
        if b.kind == "for":
            return self.is_loader(b.value, scope)
        if b.kind == "unpack":
            return self.is_batch(b.value, scope, depth, visiting) or self.carries_no_graph(b.value, scope, depth, visiting)
        if b.kind == "assign":
            return self.carries_no_graph(b.value, scope, depth, visiting)
        return False

    def is_loader(self, expr: cst.BaseExpression, scope: cst.CSTNode, _depth: int = 0) -> bool:
        """A loop iterable that yields batches: ``loader``, ``enumerate(train_loader)``,
        ``tqdm(dataloaders[phase])``, ``DataLoader(...)``, a name bound to ``DataLoader(...)``,
        mini-batches sliced by hand (``[xs[i:i + n] for i in range(0, len(xs), n)]``)."""
        if _depth > bounds.BINDING_STEPS:
            return False
        if isinstance(expr, cst.Call):
            if self.model.names.refers_to(expr.func, DATALOADER):
                return True
            fname = last_name(expr.func)
            if fname in ("enumerate", "tqdm", "iter", "trange") and expr.args:
                return self.is_loader(expr.args[0].value, scope, _depth + 1)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_loader(expr.value, scope, _depth + 1)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return _mini_batches(expr)
        name = last_name(expr)
        if name and LOADER_NAME.search(name):
            return True
        if isinstance(expr, cst.Name):
            binds = self.model.scopes.bindings(scope).get(expr.value, [])
            return bool(binds) and all(
                b.kind == "assign" and b.value is not None and self.is_loader(b.value, scope, _depth + 1) for b in binds
            )
        return False


def _mini_batches(comp: cst.BaseExpression) -> bool:
    """``[xs[i:i + n] for i in range(0, len(xs), n)]``: slices of a data set taken in
    strides, one mini-batch per item."""
    if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)) or comp.for_in.inner_for_in is not None:
        return False
    elt, loop = comp.elt, comp.for_in
    if not (isinstance(elt, cst.Subscript) and len(elt.slice) == 1 and isinstance(elt.slice[0].slice, cst.Slice)):
        return False
    it = loop.iter
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" and len(it.args) == 3):
        return False
    lower = elt.slice[0].slice.lower
    return isinstance(loop.target, cst.Name) and isinstance(lower, cst.Name) and lower.value == loop.target.value
