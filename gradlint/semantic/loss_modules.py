"""Which ``nn.*Loss`` instance a callee holds, and the shape its call returns: a
name bound to one, ``self.<attr>`` that every write in the file builds one for,
one built on the spot, each also moved or cast (``.cuda(dev)``, ``.eval()``).

The layer of ``values.Values`` between ``no_graph`` and ``kinds``, whose
``_call`` asks ``_callee_value`` for a call's value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Sequence, Set

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.lattice import Value, tensor
from gradlint.semantic.no_graph import NoGraph
from gradlint.semantic.syntax import bool_value, call_arg
from gradlint.semantic.torch_api import TORCH
from gradlint.semantic.tree import assignment, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

_NN_LOSS_SUFFIX = "Loss"
# ``nn.Module`` methods that return the module itself, moved or cast.
_MODULE_MOVES = frozenset({"cuda", "cpu", "to", "float", "double", "half", "train", "eval"})
# ``torch.nn`` classes named ``...Loss`` whose call returns no single loss tensor
# (a named tuple of output and loss).
_NOT_LOSS_TENSOR = frozenset({"torch.nn.AdaptiveLogSoftmaxWithLoss"})


# The nodes whose ``target`` a write may go through (see ``_self_attribute_writes``).
_TARGET_HOLDERS = frozenset({cst.AugAssign, cst.For, cst.CompFor})


class LossModules(NoGraph):
    """Loss modules and what their calls return (the second layer of ``values.Values``)."""

    def __init__(self, model: "SemanticModel") -> None:
        super().__init__(model)
        # Computed on first use (False: not yet).
        self._self_writes: object = False

    def _callee_value(self, func: cst.BaseExpression, depth: int) -> Optional[Value]:
        """A call of an ``nn.*Loss`` instance: a name bound to one (``criterion =
        nn.CrossEntropyLoss()``), ``self.<attr>`` that every assignment in the file
        builds one for (``self.loss = nn.CrossEntropyLoss().cuda(dev)`` in another
        method), or one built on the spot (``nn.CrossEntropyLoss()(out, y)``); also its
        ``forward`` called by name (``loss.forward(logits, labels)``), the same output."""
        if isinstance(func, cst.Attribute) and func.attr.value == "forward" and not (
            isinstance(func.value, cst.Attribute) and func.value.attr.value == "forward"
        ):
            return self._callee_value(func.value, depth)
        if isinstance(func, cst.Name):
            shape = self._loss_instance_shape(func, 0)
        elif isinstance(func, cst.Attribute):
            shape = self._loss_attribute_shape(func)
        elif isinstance(func, cst.Call):
            shape = self._loss_built_shape(func)
        else:
            shape = None
        if shape is None:
            return None
        return tensor(False if self.model.gradmode.mode_at(func).disabled is True else True, shape)

    def foreign_callee(self, func: cst.BaseExpression) -> bool:
        """Whether the callee ``func`` is a name every binding of which builds an instance
        of a class imported from another package (``criterion = CTCLoss()`` after
        ``from warpctc_pytorch import CTCLoss``): neither torch's nor a class of the
        project index. Its call returns whatever that package returns (warp-ctc's
        loss is 1-dim, one element), so a loss-like name proves no 0-dim output."""
        built = self._imported_builds(func)
        return built is not None and all(
            qualified and not any(q.partition(".")[0] == "torch" or self._project_class(q) for q in qualified)
            for qualified in built
        )

    def _project_class_callee(self, func: cst.BaseExpression) -> bool:
        """Whether the callee ``func`` is a name every binding of which builds an instance
        of a class that another file of the project index defines (``criterion =
        FocalLoss()`` after ``from .losses import FocalLoss``): that class's forward, not
        the name, decides what its call returns, and it is not read here."""
        built = self._imported_builds(func)
        return built is not None and all(qualified and all(self._project_class(q) for q in qualified) for qualified in built)

    def _imported_builds(self, func: cst.BaseExpression) -> Optional[List[FrozenSet[str]]]:
        """The qualified names of the imported class each binding of the name ``func``
        calls to build its value, or None unless every binding is such a call."""
        if not isinstance(func, cst.Name):
            return None
        reaching = self.model.scopes.visible(func.value, func)
        if not reaching.bindings or reaching.unbound:
            return None
        out: List[FrozenSet[str]] = []
        for b in reaching.bindings:
            built = _unmoved(b.value) if b.kind == "assign" and b.value is not None else None
            if not (isinstance(built, cst.Call) and isinstance(built.func, (cst.Name, cst.Attribute))):
                return None
            if not self.model.names.is_imported(built.func):
                return None
            out.append(self.model.names.qualnames(built.func))
        return out

    def _project_class(self, qualname: str) -> bool:
        """Whether the project index holds a class named ``qualname`` (what it returns
        is the project's, not another package's)."""
        project = self.model.project
        if project is None or not self.model.path:
            return False
        return project.has_class(qualname, self.model.path)

    def _loss_instance_shape(self, name: cst.Name, depth: int) -> Optional[str]:
        """The output shape of the ``nn.*Loss`` instance every binding reaching ``name``
        holds: ``criterion = nn.MSELoss()``, also moved (``nn.MSELoss().cuda()``) or
        rebound to itself moved to a device (``criterion = criterion.cuda()``, as
        0.3-era scripts did under ``if cuda:``: it holds what the other bindings
        built); None when some binding may hold anything else."""
        reaching = self.model.scopes.visible(name.value, name)
        if not reaching.bindings or reaching.unbound or depth > bounds.BINDING_STEPS:
            return None
        built = []
        passed: Set[str] = set()
        for b in reaching.bindings:
            if b.kind == "param" and isinstance(b.node, cst.Param):
                shape = self._loss_parameter_shape(b.node, depth)
                if shape is None:
                    return None
                passed.add(shape)
                continue
            value = b.value if b.kind == "assign" else None
            if value is None:
                return None
            moved = _unmoved(value)
            if isinstance(moved, cst.Name) and moved.value == name.value and moved is not value:
                continue
            built.append(value)
        if built:
            shape = self._loss_shapes(built)
            if shape is None:
                return None
            passed.add(shape)
        if not passed:
            return None
        return passed.pop() if len(passed) == 1 else "unknown"

    def _loss_parameter_shape(self, param: cst.Param, depth: int) -> Optional[str]:
        """The output shape of the loss module every call of the file passes for
        ``param`` (``train(model, criterion)`` called with ``criterion =
        nn.CrossEntropyLoss()``); None where a call may pass anything else, or
        none (the default), or where the function has callers outside the file."""
        params = self.tree.parent(param)
        func = self.tree.parent(params) if params is not None else None
        if not isinstance(func, cst.FunctionDef):
            return None
        sites = self.model.calls.call_sites(func)
        passed = self.model.calls.arguments_for(param)
        if not sites or passed is None or len(passed) != len(sites):
            return None
        shapes = set()
        for _, arg in passed:
            if isinstance(arg, cst.Name):
                shape = self._loss_instance_shape(arg, depth + 1)
            else:
                shape = self._loss_built_shape(arg)
            if shape is None:
                return None
            shapes.add(shape)
        return shapes.pop() if len(shapes) == 1 else "unknown"

    def _loss_attribute_shape(self, attr: cst.Attribute) -> Optional[str]:
        """The output shape of the ``nn.*Loss`` instance ``self.<attr>`` holds, where
        every write of that attribute of ``self`` in the file (in any method of any
        class: a subclass may assign it too) is a plain assignment that builds one,
        moved or not; ``self.loss = self.loss.cuda()`` holds what the others built.
        None when some write may hold anything else (or is a tuple target, an
        annotated or augmented assignment, ``setattr``)."""
        if not (isinstance(attr.value, cst.Name) and attr.value.value == "self"):
            return None
        if self.tree.enclosing_class(attr) is None:
            return None
        writes = self._self_attribute_writes()
        built = writes.get(attr.attr.value) if writes is not None else None
        return self._loss_shapes(built) if built is not None else None

    def _self_attribute_writes(self) -> Optional[Dict[str, Optional[List[cst.BaseExpression]]]]:
        """What each plain ``self.<attr> = value`` in the file assigns, by attribute
        (one walk for every attribute), leaving out ``self.<attr> = self.<attr>.cuda()``;
        None for an attribute also written otherwise (a tuple or loop target, an
        augmented assignment; an annotated one with a value counts as a plain one);
        None for all of them where ``setattr`` or ``delattr`` is called."""
        if self._self_writes is not False:
            return self._self_writes  # type: ignore[return-value]
        found: Dict[str, Optional[List[cst.BaseExpression]]] = {}
        poisoned: Set[str] = set()
        result: Optional[Dict[str, Optional[List[cst.BaseExpression]]]] = found
        # Exact types, not isinstance(): this walks every node of the file, and each
        # isinstance() against a LibCST node class (an ABC) is a Python-level call; the
        # classes tested are concrete, and neither a parse nor a fix subclasses them.
        targets_of = _TARGET_HOLDERS
        for node in walk(self.model.module, into_functions=True):
            kind = type(node)
            if kind is cst.Call and isinstance(node.func, cst.Name) and node.func.value in ("setattr", "delattr"):  # type: ignore[attr-defined]
                result = None
                break
            other: Optional[cst.CSTNode] = None
            if kind in targets_of:
                other = node.target  # type: ignore[attr-defined]
            elif kind is cst.AsName:
                other = node.name  # type: ignore[attr-defined]
            elif kind is cst.Assign or kind is cst.AnnAssign:
                assigned = assignment(node)
                for target in assigned[0] if assigned is not None else ():
                    if _self_attr(target, None):
                        assert isinstance(target, cst.Attribute) and assigned is not None
                        name = target.attr.value
                        moved = _unmoved(assigned[1])
                        if not (moved is not assigned[1] and _self_attr(moved, name)):
                            found.setdefault(name, []).append(assigned[1])  # type: ignore[union-attr]
                    elif isinstance(target, (cst.Tuple, cst.List)):
                        poisoned.update(n.attr.value for n in walk(target) if isinstance(n, cst.Attribute) and _self_attr(n, None))
            if other is not None:
                poisoned.update(n.attr.value for n in walk(other) if isinstance(n, cst.Attribute) and _self_attr(n, None))
        if result is not None:
            for name in poisoned:
                found[name] = None
        self._self_writes = result
        return result

    def _loss_shapes(self, built: Sequence[cst.BaseExpression]) -> Optional[str]:
        """The output shape of the loss module each of ``built`` builds (or "unknown"
        where they differ); None unless every one builds an ``nn.*Loss``."""
        if not built:
            return None
        shapes = set()
        for value in built:
            shape = self._loss_built_shape(value)
            if shape is None:
                return None
            shapes.add(shape)
        return shapes.pop() if len(shapes) == 1 else "unknown"

    def _loss_built_shape(self, value: cst.BaseExpression) -> Optional[str]:
        """``nn.CrossEntropyLoss()``, also moved or cast (``.cuda(dev)``, ``.to(d)``,
        ``.eval()``: an ``nn.Module``'s own method that returns the module): "scalar"
        when its reduction is the default or a literal "mean"/"sum" (a 0-dim
        result), "unknown" otherwise; "scalar" too for a class of another file of the
        project whose call the index proves 0-dim (``IoULoss()``); None otherwise."""
        value = _unmoved(value)
        if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return None
        q = self.model.names.qualnames_in(value.func, TORCH)
        if not any(n.startswith("torch.nn.") and n.endswith(_NN_LOSS_SUFFIX) and n not in _NOT_LOSS_TENSOR for n in q):
            return "scalar" if self._project_zero_dim_class(value.func) else None
        return "scalar" if _reduces_to_scalar(value) else "unknown"

    def _project_zero_dim_class(self, func: cst.BaseExpression) -> bool:
        """``IoULoss`` imported from another file of the project whose summary proves
        that calling an instance returns a 0-dim tensor (``project.zero_dim_call``)."""
        project = self.model.project
        if project is None or not self.model.path or not self.model.names.is_imported(func):
            return False
        qualified = self.model.names.qualnames(func)
        return bool(qualified) and all(project.zero_dim_call(q, self.model.path) for q in qualified)


def _unmoved(value: cst.BaseExpression) -> cst.BaseExpression:
    """``m`` of ``m.cuda(dev).eval()``: what a chain of ``nn.Module`` moves and casts,
    each returning its module, is called on."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _MODULE_MOVES:
        value = value.func.value
    return value


def _self_attr(node: cst.CSTNode, name: Optional[str]) -> bool:
    """``self.<name>`` (any attribute of ``self`` where ``name`` is None)."""
    return (
        isinstance(node, cst.Attribute)
        and (name is None or node.attr.value == name)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )


def _reduces_to_scalar(built: cst.Call) -> bool:
    """Whether the ``nn.*Loss(...)`` call ``built`` keeps a reduction to one value: no
    ``reduction`` but a literal "mean"/"sum", no ``reduce`` but a literal True, and at
    most one positional argument (a second may be ``reduce`` or ``reduction``, as in
    ``nn.MSELoss(size_average, reduce)`` and ``nn.CTCLoss(blank, reduction)``)."""
    if any(a.star for a in built.args) or sum(1 for a in built.args if a.keyword is None) > 1:
        return False
    reduction = call_arg(built, None, "reduction")
    if reduction is not None and not (
        isinstance(reduction.value, cst.SimpleString) and reduction.value.evaluated_value in ("mean", "sum")
    ):
        return False
    reduce = call_arg(built, None, "reduce")
    return reduce is None or bool_value(reduce.value) is True
