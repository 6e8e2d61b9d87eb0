"""Abstract values: is an expression a tensor, does it carry an autograd graph,
is it 0-dim; storage aliases (``.detach()``, ``.data``); graph evidence.

``value(expr)`` gives a ``Value`` for any expression, computed on demand and
memoised per node: not a tensor (numbers, strings, configs such as
``cfg.get(...)`` and argparse namespaces, dataclass configs, modules,
optimizers, schedulers, containers of those), a tensor (graph yes/no/maybe, a
leaf requiring grad, shape 0-dim/batch/unknown), or unknown. Names are
followed through the bindings that may reach them (``scopes``), calls of the
same file's functions through what they return.

``graph_source`` and ``storage_alias`` answer the narrower questions the
retention and in-place rules ask: which node gives a value its history, and
which tensor an in-place edit really overwrites.

``Values`` is built in layers, each a base class of the next that asks only
the layers below it: ``no_graph.NoGraph`` (batches, loaders, fresh tensors),
``kinds.Kinds`` (``value``), ``graph.GraphEvidence`` (``graph_source``,
``forward_output``), and ``Values`` itself (proven tensors, storage aliases).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Dict, Optional

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.graph import GraphEvidence
from gradlint.semantic.kinds import _PARAMETER
from gradlint.semantic.syntax import call_arg, is_basic_index, is_inplace_method, is_tensor_data_syntax
from gradlint.semantic.torch_api import (
    AS_TENSOR,
    FROM_NUMPY,
    LOSS_FUNCTIONS,
    RESHAPING_METHODS,
    REQUIRES_GRAD_FACTORIES,
    TENSOR_FACTORIES,
    TORCH,
    VIEW_ATTRIBUTES,
    VIEW_METHODS,
)
from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


@dataclass(frozen=True)
class StorageAlias:
    """A tensor that shares its storage with ``source`` through ``.detach()`` or ``.data``."""

    kind: str  # "detach" | "data"
    origin: cst.BaseExpression  # the ``x.detach()`` call or the ``x.data`` attribute
    source: cst.BaseExpression  # ``x``
    # Reached through a variable (``y = x.detach(); y.add_(1)``) rather than in one expression.
    through_name: bool = False


class Values(GraphEvidence):
    def __init__(self, model: "SemanticModel") -> None:
        super().__init__(model)
        self._proven_tensors: Dict[int, bool] = {}

    def tensor_checked(self, name: cst.Name) -> bool:
        """Whether the read ``name`` runs only where ``isinstance(name, torch.Tensor)`` held:
        in the body of an ``if`` that tests it (alone or in a tuple of types), with no
        binding of the name inside that body before the read."""
        cur: cst.CSTNode = name
        parent = self.tree.parent(cur)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, cst.If) and cur is parent.body and self._tests_tensor(parent.test, name.value):
                reaching = self.model.scopes.reaching(name)
                return bool(reaching.bindings) and not reaching.unbound and not any(
                    b.node is not None and self.tree.is_inside(parent.body, b.node) for b in reaching.bindings
                )
            cur, parent = parent, self.tree.parent(parent)
        return False

    def _tests_tensor(self, test: cst.BaseExpression, name: str) -> bool:
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"):
            return False
        if len(test.args) != 2 or not (isinstance(test.args[0].value, cst.Name) and test.args[0].value.value == name):
            return False
        kinds = test.args[1].value
        options = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        names = self.model.names
        return any(
            isinstance(o, (cst.Name, cst.Attribute)) and names.refers_to(o, frozenset({"torch.Tensor"})) for o in options
        )

    # -- storage aliases -----------------------------------------------------------------------

    def is_tensor_data(self, node: cst.CSTNode) -> bool:
        """``x.data`` read from a tensor as far as the code shows (not ``torch.utils.data``,
        not ``dataset.data`` or ``self.data``). A receiver proven a tensor is one whatever
        its name (``g = torch.sigmoid(h)``; ``g.data``): the names of datasets and configs
        only let through what is not proven either way."""
        if not (isinstance(node, cst.Attribute) and node.attr.value == "data"):
            return False
        receiver = node.value
        if isinstance(receiver, (cst.Name, cst.Attribute)) and self.model.names.is_imported(receiver):
            return False
        return is_tensor_data_syntax(node) or self.proven_tensor_or_parameter(receiver)

    def storage_alias(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[StorageAlias]:
        """Whether ``expr`` is a ``.detach()`` or ``.data`` alias of another tensor: the
        call/attribute itself, a view of one (``.view()``, ``[0]``, ``.t()``...), or a
        variable certainly bound to one. Copies (``.clone()``) and conversions that may
        or may not copy (``.cpu()``, ``.to()``, ``.float()``) are not aliases."""
        if _depth > bounds.EXPRESSION_STEPS:
            return None
        if isinstance(expr, cst.Call):
            func = expr.func
            if not isinstance(func, cst.Attribute):
                return None
            attr = func.attr.value
            if attr == "detach" and not expr.args:
                return StorageAlias("detach", expr, func.value)
            if attr in VIEW_METHODS or attr in ("requires_grad_", "detach_") or is_inplace_method(attr):
                return self.storage_alias(func.value, _depth + 1)  # views, and in-place methods return self
            return None
        if isinstance(expr, cst.Attribute):
            if expr.attr.value == "data" and self.is_tensor_data(expr):
                return StorageAlias("data", expr, expr.value)
            if expr.attr.value in VIEW_ATTRIBUTES:
                return self.storage_alias(expr.value, _depth + 1)
            return None
        if isinstance(expr, cst.Subscript):
            return self.storage_alias(expr.value, _depth + 1) if is_basic_index(expr) else None
        if isinstance(expr, cst.Name):
            value = self.value_of(expr)
            if value is None:
                return None
            found = self.storage_alias(value, _depth + 1)
            return replace(found, through_name=True) if found is not None else None
        return None

    # -- attributes of self -------------------------------------------------------------------

    def zero_dim_attribute(self, attr: cst.BaseExpression) -> bool:
        """Whether ``self.<attr>``, read in a method, holds a 0-dim tensor: every write of
        that attribute of ``self`` in the file (any method of any class, as for a loss
        module held by an attribute) is a plain assignment of a value proven 0-dim
        (``self.loss = self.criterion(out, y)`` with ``self.criterion =
        nn.MSELoss()``), and nothing reshapes it in place (``self.loss.unsqueeze_(0)``,
        ``self.loss.data = ...``). A write of a number (``self.loss_kl = 0`` where its
        weight is zero) leaves no tensor to read: ``.data`` of a number raises too, so
        wherever the read works on some PyTorch the attribute holds one of the 0-dim
        tensors. A tuple or augmented write, ``setattr``, or a write of anything else
        (a per-sample loss, a stack of losses) proves nothing."""
        if not (isinstance(attr, cst.Attribute) and isinstance(attr.value, cst.Name) and attr.value.value == "self"):
            return False
        if self.tree.enclosing_class(attr) is None:
            return False
        writes = self._self_attribute_writes()
        written = writes.get(attr.attr.value) if writes is not None else None
        if not written:
            return False
        tensors = 0
        for value in written:
            found = self.value(value)
            if found.is_tensor and found.shape == "scalar":
                tensors += 1
            elif not (found.not_tensor and found.what in ("number", "bool")):
                return False
        return tensors > 0 and not self._reshaped_attribute(attr.attr.value)

    def _reshaped_attribute(self, name: str) -> bool:
        """Whether ``self.<name>`` may change shape in place somewhere in the file."""
        for node in walk(self.model.module, into_functions=True):
            if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Attribute)):
                continue
            inner = node.value
            if not (inner.attr.value == name and isinstance(inner.value, cst.Name) and inner.value.value == "self"):
                continue
            parent = self.tree.parent(node)
            if node.attr.value in RESHAPING_METHODS and isinstance(parent, cst.Call) and parent.func is node:
                return True
            if node.attr.value == "data" and isinstance(parent, cst.AssignTarget) and parent.target is node:
                return True
        return False

    # -- proven tensors ------------------------------------------------------------------------

    def proven_tensor(self, expr: cst.BaseExpression, _depth: int = 0) -> bool:
        """Whether ``expr`` is certainly a ``torch.Tensor``: what a tensor method, a
        torch loss, an ``nn.*Loss`` instance or a torch function known to return one
        gives, arithmetic and basic indexing of such, a name every binding that may
        reach it binds to such. A forward's output is not (``rnn(x)`` returns
        ``(out, h)``, Hugging Face models a dataclass), nor anything judged from a name.
        What a fix that calls a tensor method (``.detach()``) requires of its receiver."""
        key = id(expr)
        found = self._proven_tensors.get(key)
        if found is None:
            self._proven_tensors[key] = False  # a cycle proves nothing
            found = self._proven_tensors[key] = _depth <= bounds.GRAPH_STEPS and self._prove_tensor(expr, _depth)
        return found

    def proven_tensor_or_parameter(self, expr: cst.BaseExpression) -> bool:
        """``proven_tensor``, or a parameter of what is proven a module: ``p`` of ``for p
        in net.parameters()``, ``self.proj.weight``; or a ``.grad``."""
        if isinstance(expr, cst.Attribute) and expr.attr.value == "grad":
            return True
        if self.proven_tensor(expr):
            return True
        modules = self.model.modules
        if isinstance(expr, cst.Attribute) and expr.attr.value in ("weight", "bias"):
            return modules.is_module(expr.value)
        if isinstance(expr, cst.Name):
            reaching = self.model.scopes.reaching(expr)
            if reaching.unbound or not reaching.bindings:
                return False
            for b in reaching.bindings:
                loop = b.value if b.form == "for" else None
                if not (
                    isinstance(loop, cst.Call)
                    and isinstance(loop.func, cst.Attribute)
                    and loop.func.attr.value in ("parameters", "buffers")
                    and modules.is_module(loop.func.value)
                ):
                    return False
            return True
        return False

    def _single_tensor_module(self, ref: cst.BaseExpression, depth: int) -> bool:
        """Whether ``ref`` certainly holds a ``torch.nn`` layer whose forward returns one
        tensor: every binding reaching a name (or every ``self.<attr> = ...`` of the class)
        builds one, ``nn.Sequential`` of such layers included; not ``nn.LSTM`` and the other
        layers that return tuples, nor ``nn.Identity``, which returns what it is given."""
        built = self.model.modules.assigned_values(ref)
        return bool(built) and all(self._single_tensor_layer(v, depth) for v in built)

    def _single_tensor_layer(self, expr: cst.BaseExpression, depth: int) -> bool:
        if depth > bounds.EXPRESSION_STEPS or not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return False
        names = self.model.names.qualnames_in(expr.func, TORCH)
        layer = next((q for q in names if q.startswith("torch.nn.") and q.count(".") == 2), None)
        if layer is None:
            return False
        cls = layer.rsplit(".", 1)[1]
        if cls == "Sequential":
            return bool(expr.args) and all(
                a.keyword is None and not a.star and self._single_tensor_layer(a.value, depth + 1) for a in expr.args
            )
        if "MaxPool" in cls:
            return call_arg(expr, None, "return_indices") is None  # else (output, indices)
        return cls[:1].isupper() and cls not in _NOT_SINGLE_TENSOR_LAYERS

    def _prove_tensor(self, expr: cst.BaseExpression, depth: int) -> bool:
        if isinstance(expr, cst.Name) and self.tensor_checked(expr):
            return True  # in the branch of ``if isinstance(h, torch.Tensor)``
        if not self.value(expr).is_tensor:
            return False
        if isinstance(expr, cst.Name):
            reaching = self.model.scopes.reaching(expr)
            if reaching.unbound or not reaching.bindings:
                return False
            for b in reaching.bindings:
                if b.form == "aug" and isinstance(b.node, cst.AugAssign):
                    if not (self.proven_tensor(b.node.value, depth + 1) or self.proven_tensor(b.node.target, depth + 1)):
                        return False
                elif b.kind != "assign" or b.value is None or not self.proven_tensor(b.value, depth + 1):
                    return False
            return True
        if isinstance(expr, cst.BinaryOperation):
            return self.proven_tensor(expr.left, depth + 1) or self.proven_tensor(expr.right, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return self.proven_tensor(expr.expression, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._view_index(expr) and self.proven_tensor(expr.value, depth + 1)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in VIEW_ATTRIBUTES | {"data", "grad"} and self.proven_tensor(expr.value, depth + 1)
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return False
        func = expr.func
        qualified = self.model.names.qualnames_in(func, TORCH)
        if qualified & (LOSS_FUNCTIONS | TENSOR_FACTORIES | REQUIRES_GRAD_FACTORIES | AS_TENSOR | FROM_NUMPY | _PARAMETER):
            return True
        if isinstance(func, cst.Name) and self._callee_value(func, depth) is not None:
            return True  # ``criterion(out, y)`` for ``criterion = nn.CrossEntropyLoss()``
        if self._single_tensor_module(func, depth):
            return True  # ``net(x)`` for ``net = nn.Sequential(nn.Linear(...), nn.ReLU())``
        if any(q.startswith("torch.") for q in qualified):
            # ``torch.stack(outs)``, ``F.relu(h)``: value() knows those returning pairs and numbers
            return True
        if isinstance(func, cst.Attribute) and not self.model.names.is_imported(func.value):
            return self.proven_tensor(func.value, depth + 1)  # ``loss.mean()``, ``out.softmax(-1)``
        return False


# ``torch.nn`` classes whose call does not return one tensor: recurrent layers and
# attention (tuples), containers (not callable), ``Identity`` (its input), and the
# adaptive softmax (a named tuple); max pools do with ``return_indices`` given.
_NOT_SINGLE_TENSOR_LAYERS = frozenset(
    {
        "RNN", "LSTM", "GRU", "RNNBase", "MultiheadAttention", "Transformer", "Identity",
        "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "AdaptiveLogSoftmaxWithLoss",
        "Module", "Parameter",
    }
)

