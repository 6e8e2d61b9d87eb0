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
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterable, Optional, Sequence, Set, Tuple, TypeVar, cast

import libcst as cst

from gradlint.semantic.frameworks import LOSS_STEPS, NUMBER_METHODS
from gradlint.semantic.modules import class_forward
from gradlint.semantic.scopes import Binding
from gradlint.semantic.syntax import (
    bool_value,
    call_arg,
    is_basic_index,
    is_inplace_method,
    is_tensor_data_syntax,
    last_name,
    looks_forward,
    root_name,
)
from gradlint.semantic.torch_api import (
    ARGPARSE,
    AT_LEAST_1D_METHODS,
    AS_TENSOR,
    CONFIG_NAME,
    CONVERSIONS,
    DATALOADER,
    FACTORY_NAME,
    ELEMENTWISE_METHODS,
    FROM_NUMPY,
    LOADER_NAME,
    LOSS_CALLEE_NAME,
    LOSS_FUNCTIONS,
    MODULE_API,
    NO_GRAPH_ATTRIBUTES,
    NO_GRAPH_CALLS,
    NO_GRAPH_METHODS,
    NOT_TENSOR_ATTRIBUTES,
    OPTIMIZER_PREFIX,
    PYTHON_VALUE_FUNCS,
    PYTHON_VALUE_METHODS,
    REDUCTIONS,
    REQUIRES_GRAD_FACTORIES,
    SAME_GRAPH_METHODS,
    SCHEDULER_PREFIX,
    TENSOR_FACTORIES,
    TORCH,
    VARIABLE,
    VIEW_ATTRIBUTES,
    VIEW_METHODS,
)
from gradlint.semantic.tree import walk

_T = TypeVar("_T")

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

_PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
_NUMBER_FUNCS = frozenset({"float", "int", "len", "round", "bool", "abs", "sum", "max", "min"})
_STRING_FUNCS = frozenset({"str", "repr", "format"})
# Methods of ``str`` that tensors do not have.
_STR_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "capitalize", "title", "startswith", "endswith", "join", "format"})
_NN_LOSS_SUFFIX = "Loss"
# ``nn.Module`` methods that return the module itself, moved or cast.
_MODULE_MOVES = frozenset({"cuda", "cpu", "to", "float", "double", "half", "train"})
# ``Tensor.new*`` methods: a new tensor of the receiver's dtype and device, built from
# sizes, a value or data copied without history (``new_tensor`` detaches).
_NEW_TENSOR_METHODS = frozenset({"new", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"})
# Casts to an integer or boolean dtype: same shape, and such tensors never carry a graph.
_INTEGER_CASTS = frozenset({"int", "long", "short", "byte", "char", "bool"})


@dataclass(frozen=True)
class Value:
    """What an expression evaluates to, as far as the file shows.

    ``kind``: "tensor", "not_tensor" or "unknown". For tensors, ``graph`` is True
    (carries autograd history), False (none) or None (maybe); ``leaf`` is a leaf
    that requires grad (``nn.Parameter``, ``torch.zeros(..., requires_grad=True)``);
    ``shape`` is "scalar" (0-dim), "batch" or "unknown". For the rest, ``what``
    says what it is: "number", "numbers" (lists of them), "string", "bool",
    "config", "namespace", "parser", "module", "optimizer", "scheduler",
    "container" (may hold tensors), "array", "function", "class", "none",
    "handle" (a hook handle).

    ``max_dims`` is an upper bound on the number of dimensions, proven by torch's
    shape rules alone (``x.t()`` has at most 2, an item of iterating a tensor one
    fewer than the tensor, a reduction without ``dim`` none), never by names; None
    when nothing bounds it. It also holds of a value of unknown kind that is a
    tensor if anything (an item of iterating ``x.t()``). 0 means 0-dim, and then
    ``shape`` is "scalar".
    """

    kind: str
    graph: Optional[bool] = None
    leaf: bool = False
    shape: str = "unknown"
    what: str = ""
    max_dims: Optional[int] = None

    @property
    def is_tensor(self) -> bool:
        return self.kind == "tensor"

    @property
    def not_tensor(self) -> bool:
        return self.kind == "not_tensor"


UNKNOWN = Value("unknown")


def _not(what: str) -> Value:
    return Value("not_tensor", what=what)


def tensor(graph: Optional[bool], shape: str = "unknown", leaf: bool = False, max_dims: Optional[int] = None) -> Value:
    return Value("tensor", graph=graph, leaf=leaf, shape="scalar" if max_dims == 0 else shape, max_dims=max_dims)


def bounded(kind: str, max_dims: Optional[int], graph: Optional[bool] = None) -> Value:
    """A tensor (``kind`` "tensor") or a value of unknown kind with at most ``max_dims`` dimensions."""
    if kind == "tensor":
        return tensor(graph, max_dims=max_dims)
    if max_dims is None:
        return UNKNOWN
    return Value("unknown", shape="scalar" if max_dims == 0 else "unknown", max_dims=max_dims)


def _bound(values: Iterable[Value]) -> Optional[int]:
    """The bound on dimensions that holds of each of ``values``, if each has one."""
    dims = [v.max_dims for v in values]
    return None if not dims or any(d is None for d in dims) else max(dims)  # type: ignore[type-var]


def join(values: Iterable[Value]) -> Value:
    """What a value is when it may be any of ``values``."""
    found = list(values)
    if not found:
        return UNKNOWN
    first = found[0]
    if any(v.kind != first.kind for v in found) or first.kind == "unknown":
        if all(v.shape == "batch" and not v.not_tensor for v in found):
            return Value("unknown", shape="batch", max_dims=_bound(found))  # a tensor or an array, with a dimension either way
        if not any(v.not_tensor for v in found):
            return bounded("unknown", _bound(found))
        return UNKNOWN
    if first.kind == "not_tensor":
        whats = {v.what for v in found}
        if len(whats) == 1:
            return first
        return _not("container" if "container" in whats else "mixed")  # a container may hold tensors
    graphs = {v.graph for v in found}
    shapes = {v.shape for v in found}
    return tensor(
        graphs.pop() if len(graphs) == 1 else None,
        shapes.pop() if len(shapes) == 1 else "unknown",
        all(v.leaf for v in found),
        _bound(found),
    )


@dataclass(frozen=True)
class StorageAlias:
    """A tensor that shares its storage with ``source`` through ``.detach()`` or ``.data``."""

    kind: str  # "detach" | "data"
    origin: cst.BaseExpression  # the ``x.detach()`` call or the ``x.data`` attribute
    source: cst.BaseExpression  # ``x``
    # Reached through a variable (``y = x.detach(); y.add_(1)``) rather than in one expression.
    through_name: bool = False


class _Lazy:
    """A truth computed the first time it is tested (the grad mode at a call costs a
    look at the callers; most calls are settled before it matters)."""

    def __init__(self, compute: Callable[[], object]) -> None:
        self._compute = compute
        self._value: Optional[bool] = None

    def __bool__(self) -> bool:
        if self._value is None:
            self._value = bool(self._compute())
        return self._value


class Values:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._values: Dict[int, Value] = {}
        self._in_progress: Set[int] = set()
        self._graph_by_name: Dict[int, Optional[cst.CSTNode]] = {}
        self._returns_checked: Set[int] = set()
        self._summaries: Dict[int, Value] = {}
        self._dataclasses: Optional[FrozenSet[str]] = None
        self._edited: Dict[int, FrozenSet[str]] = {}
        self._forward_outputs: Dict[int, Optional[cst.CSTNode]] = {}
        # Whether graph evidence may rest on names (a callee named like a model or a
        # loss): True for ``graph_source``, False inside ``proven_graph_source``,
        # which keeps memos of its own.
        self._by_name = True
        self._proven_memos: Tuple[Dict[int, Optional[cst.CSTNode]], Dict[int, Optional[cst.CSTNode]]] = ({}, {})
        self._proven_tensors: Dict[int, bool] = {}

    # -- the abstract value ---------------------------------------------------------------

    def value(self, expr: cst.BaseExpression, _depth: int = 0) -> Value:
        key = id(expr)
        found = self._values.get(key)
        if found is not None:
            return found
        if key in self._in_progress or _depth > 12:
            return UNKNOWN  # ``h = h + layer(h)`` in a loop: the other bindings decide
        self._in_progress.add(key)
        try:
            found = self._compute(expr, _depth)
        finally:
            self._in_progress.discard(key)
        self._values[key] = found
        return found

    def _compute(self, expr: cst.BaseExpression, depth: int) -> Value:
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
            return _not("number")
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return _not("string")
        if isinstance(expr, (cst.Comparison,)) and not any(self.value(c.comparator, depth + 1).is_tensor for c in expr.comparisons):
            return tensor(False) if self.value(expr.left, depth + 1).is_tensor else _not("bool")
        if isinstance(expr, cst.Comparison):
            return tensor(False)
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return _not("container")
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return _not("container")
        if isinstance(expr, cst.Lambda):
            return _not("function")
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Subscript):
            if _pair_indices(expr):
                return tensor(False, "unknown", False)  # integer indices: no history
            base = self.value(expr.value, depth + 1)
            # One integer index takes away one dimension: ``x[i]`` of a 1-dim tensor is 0-dim.
            dims = base.max_dims - 1 if base.max_dims and self._integer_index(expr, depth) else None
            if base.is_tensor:
                return tensor(base.graph, "unknown", False, dims)
            if base.not_tensor and base.what in ("numbers", "string"):
                return _not("number" if base.what == "numbers" else "string")
            return bounded("unknown", dims)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo) and isinstance(
            expr.left, (cst.SimpleString, cst.ConcatenatedString)
        ):
            return _not("string")  # ``"%s\n" % x``: printf-style formatting makes a str
        if isinstance(expr, cst.BinaryOperation):
            return self._arith([expr.left, expr.right], depth)
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return _not("bool")
            return self._arith([expr.expression], depth)
        if isinstance(expr, cst.BooleanOperation):
            return join([self.value(expr.left, depth + 1), self.value(expr.right, depth + 1)])
        if isinstance(expr, cst.IfExp):
            return join([self.value(expr.body, depth + 1), self.value(expr.orelse, depth + 1)])
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Await):
            return UNKNOWN
        return UNKNOWN

    def _arith(self, operands: Iterable[cst.BaseExpression], depth: int) -> Value:
        values = [self.value(o, depth + 1) for o in operands]
        tensors = [v for v in values if v.is_tensor]
        if not tensors:
            if all(v.not_tensor and v.what in ("number", "bool") for v in values):
                return _not("number")
            if all(v.not_tensor for v in values):
                return _not(values[0].what)
            if any(v.shape == "batch" for v in values):
                return Value("unknown", shape="batch")  # broadcast with an operand that has a dimension
            return UNKNOWN
        # Broadcasting: an operand with a dimension gives the result one.
        batch = any(v.shape == "batch" for v in values if not v.not_tensor)
        if any(v.kind == "unknown" for v in values):
            graph: Optional[bool] = True if any(v.graph or v.leaf for v in tensors) else None
            return tensor(graph, "batch" if batch else "unknown")
        graph = True if any(v.graph or v.leaf for v in tensors) else (False if all(v.graph is False for v in tensors) else None)
        shape = "batch" if batch else "scalar" if all(v.shape == "scalar" or v.not_tensor for v in values) else "unknown"
        # Broadcasting gives the most dimensions of the operands; a Python number has none.
        dims: Optional[int] = None
        if all(v.max_dims is not None for v in tensors) and all(v.is_tensor or v.what in ("number", "bool") for v in values):
            dims = max(v.max_dims for v in tensors)  # type: ignore[type-var]
        return tensor(graph, shape, max_dims=dims)

    def _name(self, name: cst.Name, depth: int) -> Value:
        scopes = self.model.scopes
        reaching = scopes.reaching(name)
        if not reaching.bindings:
            if name.value in ("True", "False"):
                return _not("bool")
            if name.value == "None":
                return _not("none")
            seen = scopes.visible(name.value, name)
            if seen.bindings and not seen.unbound:
                return join(self._binding(b, depth) for b in seen.bindings)
            return UNKNOWN
        if reaching.unbound:
            return UNKNOWN
        accumulated = self._accumulated(reaching.bindings, depth)
        if accumulated is not None:
            return accumulated
        values = [self._binding(b, depth) for b in reaching.bindings]
        found = join(values)
        if found.is_tensor and found.graph is False and name.value in self._edited_in_place(name):
            # ``out[:, i] = layer(h)``, ``buf.add_(x)``: an edit can give it history
            return tensor(None, found.shape, found.leaf)
        return found

    def _accumulated(self, bindings: Sequence[Binding], depth: int) -> Optional[Value]:
        """``total = 0`` then ``total += t`` (in a loop) with tensors ``t``: a tensor
        accumulator. The starting number only remains if nothing was added, and is
        then no tensor that could be used as one: what is added decides."""
        augs = [b for b in bindings if b.form == "aug"]
        starts = [b for b in bindings if b.form != "aug"]
        if not augs or not starts or len(starts) + len(augs) != len(bindings):
            return None
        if not all(b.kind == "assign" and b.value is not None and self.value(b.value, depth + 1).what == "number" for b in starts):
            return None
        added = [self.value(b.value, depth + 1) for b in augs if b.value is not None]
        if len(added) != len(augs) or not all(v.is_tensor for v in added):
            return None
        graph: Optional[bool] = True if any(v.graph or v.leaf for v in added) else (
            False if all(v.graph is False for v in added) else None
        )
        shapes = {v.shape for v in added}
        return tensor(graph, shapes.pop() if len(shapes) == 1 else "unknown")

    def adds_up_numbers(self, name: cst.Name) -> bool:
        """Whether every binding of ``name`` that reaches this read starts it as a number
        or adds a number to it (``total = 0.0`` then ``total += loss.item()``): a Python
        number throughout, whatever ``value`` makes of the sum."""
        reaching = self.model.scopes.reaching(name)
        if reaching.unbound or not reaching.bindings:
            return False
        for b in reaching.bindings:
            if b.value is None or b.form not in ("assign", "aug"):
                return False
            v = self.value(b.value)
            if not (v.not_tensor and v.what in ("number", "bool")):
                return False
        return True

    def _edited_in_place(self, name: cst.Name) -> FrozenSet[str]:
        """Names of the scope of ``name`` whose tensor is edited in place somewhere:
        an item or slice assigned, an augmented assignment to one, an in-place method."""
        scope = self.tree.function_scope(name)
        found = self._edited.get(id(scope))
        if found is None:
            edited = set()
            body = scope if isinstance(scope, cst.Module) else scope.body
            for node in walk(body):
                target = None
                if isinstance(node, cst.Assign):
                    for t in node.targets:
                        if isinstance(t.target, cst.Subscript):
                            target = t.target.value
                elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
                    target = node.target.value
                elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and is_inplace_method(node.func.attr.value):
                    target = node.func.value
                while isinstance(target, (cst.Subscript, cst.Attribute)) and not isinstance(target, cst.Name):
                    target = target.value
                if isinstance(target, cst.Name):
                    edited.add(target.value)
            found = self._edited[id(scope)] = frozenset(edited)
        return found

    def _binding(self, b: Binding, depth: int) -> Value:
        form = b.form
        if form in ("def",):
            return _not("function")
        if form == "class":
            return _not("class")
        if form == "import":
            return _not("module")
        if form == "aug":
            target = b.node.target  # type: ignore[union-attr]
            before = self.value(target, depth + 1) if isinstance(target, cst.Name) else UNKNOWN
            return self._arith_values(before, self.value(b.value, depth + 1)) if b.value is not None else UNKNOWN
        if b.kind == "assign" and b.value is not None:
            return self.value(b.value, depth + 1)
        if form == "param":
            return self._param(b.node)  # type: ignore[arg-type]
        if form == "for" and b.value is not None:
            bound = self._bounded_item(b, depth)
            return bound if bound is not None else self._item_of(b.value, depth)
        if form == "unpack" and b.value is not None:
            whole = self.value(b.value, depth + 1)
            if whole.is_tensor:
                return tensor(whole.graph)
            if self.is_batch(b.value, self.tree.function_scope(b.value)):
                return tensor(False)
            return UNKNOWN
        return UNKNOWN

    def _arith_values(self, a: Value, b: Value) -> Value:
        if a.not_tensor and b.not_tensor and {a.what, b.what} <= {"number", "bool"}:
            return _not("number")
        if a.is_tensor or b.is_tensor:
            tensors = [v for v in (a, b) if v.is_tensor]
            return tensor(True if any(v.graph or v.leaf for v in tensors) else None)
        return UNKNOWN

    def _param(self, param: cst.Param) -> Value:
        ann = param.annotation.annotation if param.annotation is not None else None
        if isinstance(ann, cst.Name) and ann.value in ("int", "float", "bool", "complex"):
            return _not("number")
        if isinstance(ann, cst.Name) and ann.value == "str":
            return _not("string")
        if isinstance(ann, (cst.Name, cst.Attribute)):
            names = self.model.names
            if names.refers_to(ann, frozenset({"torch.Tensor"})):
                return tensor(None)
            if self.model.modules._module_binding(Binding("param", None, param, "param"), param.name.value, 0):
                return _not("module")
        if ann is None and param.default is not None and self._literal_shape(param.default) == "scalar":
            return _not("number")  # ``beta=0.5``: a coefficient, by its default
        if self._instance_of_plain_class(param):
            return _not("object")
        return UNKNOWN

    def _instance_of_plain_class(self, param: cst.Param) -> bool:
        """``self`` of a method of a class without bases (``class Pairs:``): an object of
        that class, never a tensor, so ``self.data`` is the class's own attribute, not
        ``Tensor.data``."""
        params = self.tree.parent(param)
        func = self.tree.parent(params) if isinstance(params, cst.Parameters) else None
        if not isinstance(func, cst.FunctionDef) or not func.params.params or func.params.params[0] is not param:
            return False
        if any(not (isinstance(d.decorator, cst.Name) and d.decorator.value == "property") for d in func.decorators):
            return False  # ``@staticmethod``, ``@classmethod``, or a decorator that may change what is passed
        block = self.tree.parent(func)
        cls = self.tree.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(cls, cst.ClassDef) or cls.keywords:
            return False
        return all(isinstance(b.value, cst.Name) and b.value.value == "object" and not b.keyword for b in cls.bases)

    def _bounded_item(self, b: Binding, depth: int) -> Optional[Value]:
        """The name a ``for`` binds, where the iterable's dimensions are bounded: iterating
        a tensor of at most n dimensions yields tensors of at most n - 1, and unpacking
        one iterates it again (``for i, row in enumerate(x.t())``: ``row`` has at most
        1). None where no bound is known."""
        path = _target_path(b)
        iterable = b.value
        if path is None or iterable is None:
            return None
        if (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Name)
            and iterable.func.value == "enumerate"
            and not self.model.names.is_imported(iterable.func)
            and not self.model.scopes.visible("enumerate", iterable).bindings
            and len(iterable.args) == 1
            and not iterable.args[0].keyword
            and not iterable.args[0].star
            and path
            and path[0] == 1
        ):
            iterable, path = iterable.args[0].value, path[1:]
        whole = self.value(iterable, depth + 1)
        if whole.max_dims is None or whole.max_dims < 1 + len(path):
            return None
        return bounded("tensor" if whole.is_tensor else "unknown", whole.max_dims - 1 - len(path), whole.graph)

    def _item_of(self, iterable: cst.BaseExpression, depth: int) -> Value:
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
            if iterable.func.value == "range":
                return _not("number")
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute):
            if iterable.func.attr.value in ("parameters",):
                return tensor(False, leaf=True)
        if self.is_loader(iterable, self.tree.function_scope(iterable)):
            return UNKNOWN  # a batch: a tuple or dict of tensors, or a tensor
        return UNKNOWN

    def _attribute(self, expr: cst.Attribute, depth: int) -> Value:
        attr = expr.attr.value
        names = self.model.names
        if names.is_imported(expr):
            return UNKNOWN  # ``torch.float32``, ``np.pi``: a module's attribute
        base = self.value(expr.value, depth + 1)
        if base.is_tensor:
            if attr in NOT_TENSOR_ATTRIBUTES:
                return _not("bool" if attr in ("requires_grad", "is_leaf", "is_cuda") else "number" if attr == "ndim" else "config")
            if attr in ("data", "grad"):
                return tensor(False, base.shape if attr == "data" else "unknown", max_dims=base.max_dims)
            if attr in VIEW_ATTRIBUTES:
                return tensor(base.graph, base.shape, max_dims=base.max_dims)
            return UNKNOWN
        if base.kind == "unknown" and attr in NOT_TENSOR_ATTRIBUTES:
            return _not("config")
        if base.kind == "unknown" and attr in ("data", "grad"):
            # a tensor's data or gradient: no history, whatever holds it (a gradient has its tensor's shape)
            return tensor(False, max_dims=base.max_dims)
        if base.not_tensor and base.what in ("config", "namespace"):
            return _not("config")
        root = expr.value
        if isinstance(root, cst.Name) and CONFIG_NAME.search(root.value) and not base.is_tensor:
            return _not("config")
        return UNKNOWN

    def _call(self, call: cst.Call, depth: int) -> Value:
        func = call.func
        names = self.model.names
        if isinstance(func, cst.Name) and not names.is_imported(func):
            if func.value in _NUMBER_FUNCS and func.value not in ("sum", "max", "min", "abs"):
                return _not("bool" if func.value == "bool" else "number")
            if func.value in _STRING_FUNCS:
                return _not("string")
            if func.value in ("list", "dict", "tuple", "set", "sorted", "zip", "enumerate", "range"):
                return _not("container")
            if func.value == "print":
                return _not("none")
            if func.value == "isinstance":
                return _not("bool")
            if func.value in self._dataclass_names():
                return _not("config")
        qualified = names.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) else frozenset()
        qualified_all = qualified or (
            names.qualnames(func) if isinstance(func, (cst.Name, cst.Attribute)) and names.is_imported(func) else frozenset()
        )
        if qualified_all & ARGPARSE:
            return _not("parser")
        disabled = _Lazy(lambda: self.model.gradmode.mode_at(call).disabled is True)
        if qualified & AS_TENSOR and call.args:
            inner = self.value(call.args[0].value, depth + 1)
            # ``as_tensor`` returns a tensor argument itself (same dtype and device), history and all.
            return inner if inner.is_tensor else tensor(False, self._literal_shape(call.args[0].value))
        if qualified & FROM_NUMPY:
            return tensor(False)
        if qualified & REQUIRES_GRAD_FACTORIES or qualified & TENSOR_FACTORIES or qualified & VARIABLE:
            flag = call_arg(call, None, "requires_grad")
            leaf = flag is not None and bool_value(flag.value) is not False and not (qualified & VARIABLE)
            shape = self._literal_shape(call.args[0].value) if qualified & {"torch.tensor"} and call.args else "unknown"
            return tensor(False, shape, leaf)
        if qualified & _PARAMETER:
            flag = call_arg(call, 1, "requires_grad")
            return tensor(False, leaf=flag is None or bool_value(flag.value) is not False)
        if qualified & LOSS_FUNCTIONS:
            reduction = call_arg(call, None, "reduction")
            shape = "scalar" if reduction is None or (
                isinstance(reduction.value, cst.SimpleString) and reduction.value.evaluated_value in ("mean", "sum")
            ) else "unknown"
            return tensor(False if disabled else True, shape)
        if any(q.startswith(SCHEDULER_PREFIX) for q in qualified):
            return _not("scheduler")
        if any(q.startswith(OPTIMIZER_PREFIX) for q in qualified):
            return _not("optimizer")
        if isinstance(func, (cst.Name, cst.Attribute)) and self.model.modules._module_call(call, 0):
            return _not("module")
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = func.value
            if method == "parse_args" or method == "parse_known_args":
                return _not("namespace")
            if method in ("decode", "batch_decode") and "token" in (last_name(receiver) or "").lower():
                return _not("string")  # a tokenizer's: token ids to text
            if method == "transcribe":  # a speech recogniser's: audio to text
                return _not("string")
            if method in _STR_METHODS:
                return _not("bool" if method in ("startswith", "endswith") else "string")
            if method in ("get_last_lr", "get_lr"):  # an LR scheduler's current rates: Python floats
                return _not("numbers")
            if self._library_number_method(call):
                return _not("number")
            if method.startswith("register_") and method.endswith("hook"):
                return _not("handle")  # ``register_forward_hook(...)`` returns a RemovableHandle
            base = self.value(receiver, depth + 1)
            if base.not_tensor and base.what in ("config", "namespace", "container") and method in ("get", "pop", "setdefault"):
                return _not("config") if base.what != "container" else UNKNOWN
            receiver_name = last_name(receiver)
            if receiver_name and CONFIG_NAME.search(receiver_name) and method == "get" and not base.is_tensor:
                return _not("config")
            if base.is_tensor:
                return self._tensor_method(call, method, base, disabled)
            if base.kind == "unknown" and method == "t" and not call.args and not names.is_imported(receiver):
                # ``Tensor.t()`` accepts at most 2 dimensions and returns as many: whatever the
                # receiver is, what it returns has at most 2 if it is a tensor at all.
                return bounded("unknown", min(2, base.max_dims) if base.max_dims is not None else 2)
            if base.kind == "unknown" and method in AT_LEAST_1D_METHODS and (method in ("flatten", "ravel") or _dims_given(call)):
                # A tensor or an array, with at least one dimension either way.
                return Value("unknown", shape="batch", max_dims=self._dims_after(call, method, UNKNOWN))
            if base.kind == "unknown" and not names.is_imported(receiver) and (
                method in NO_GRAPH_METHODS or method in PYTHON_VALUE_METHODS
            ):
                # Named like tensor methods that return no history: what they return is
                # as plain whatever the receiver turns out to be.
                return self._tensor_method(call, method, tensor(None), disabled)
            if any(q.startswith("torch.") for q in qualified):
                return self._torch_function(call, qualified, depth, disabled)
        elif any(q.startswith("torch.") for q in qualified):
            return self._torch_function(call, qualified, depth, disabled)
        callee = self._callee_value(func, depth)
        if callee is not None:
            return callee
        forward = self.model.modules.forward(call)
        if forward is not None and forward.evidence != "helper":  # a helper: what it returns decides
            module = forward.module
            records = None
            if module is not None and isinstance(module, cst.Name):
                cls = self.model.modules._instance_class(module, 0)
                records = self.model.modules.records_graph(cls) if cls is not None else None
            return tensor(False if disabled or records is False else True, "batch")
        local = self.model.calls.local_function(call)
        if local is not None:
            return self.returns(local, depth)
        if LOSS_CALLEE_NAME.search(last_name(func) or ""):
            return tensor(False if disabled else True, "scalar")
        return UNKNOWN

    def _library_number_method(self, call: cst.Call) -> bool:
        """``svi.evaluate_loss(x)`` where ``svi = SVI(...)`` is pyro's: a method that the
        framework table says returns a Python number."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return False
        method = func.attr.value
        if not any(method in methods for methods in NUMBER_METHODS.values()):
            return False
        seen = self.model.scopes.visible(func.value.value, func.value)
        if not seen.bindings or seen.unbound:
            return False
        for b in seen.bindings:
            made = b.value if b.kind == "assign" else None
            if not (isinstance(made, cst.Call) and isinstance(made.func, (cst.Name, cst.Attribute))):
                return False
            classes = self.model.names.qualnames(made.func)
            if not any(method in NUMBER_METHODS.get(q, ()) for q in classes):
                return False
        return True

    def _callee_value(self, func: cst.BaseExpression, depth: int) -> Optional[Value]:
        """A call of an ``nn.*Loss`` instance (``criterion = nn.CrossEntropyLoss()``)."""
        if not isinstance(func, cst.Name):
            return None
        shape = self._loss_instance_shape(func, 0)
        if shape is None:
            return None
        return tensor(False if self.model.gradmode.mode_at(func).disabled is True else True, shape)

    def _loss_instance_shape(self, name: cst.Name, depth: int) -> Optional[str]:
        """The output shape of the ``nn.*Loss`` instance every binding reaching ``name``
        holds: ``criterion = nn.MSELoss()``, also rebound to itself moved to a device
        (``criterion = criterion.cuda()``, as 0.3-era scripts did under ``if cuda:``);
        None when some binding may hold anything else."""
        reaching = self.model.scopes.visible(name.value, name)
        if not reaching.bindings or reaching.unbound or depth > 4:
            return None
        shapes = set()
        for b in reaching.bindings:
            value = b.value if b.kind == "assign" else None
            if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
                return None
            if (
                isinstance(value.func, cst.Attribute)
                and value.func.attr.value in _MODULE_MOVES
                and isinstance(value.func.value, cst.Name)
                and value.func.value.value == name.value
            ):
                moved = self._loss_instance_shape(value.func.value, depth + 1)
                if moved is None:
                    return None
                shapes.add(moved)
                continue
            q = self.model.names.qualnames_in(value.func, TORCH)
            if not any(n.startswith("torch.nn.") and n.endswith(_NN_LOSS_SUFFIX) for n in q):
                return None
            shapes.add("scalar" if call_arg(value, None, "reduction") is None else "unknown")
        return shapes.pop() if len(shapes) == 1 else "unknown"

    def _tensor_method(self, call: cst.Call, method: str, base: Value, disabled: "_Lazy") -> Value:
        if method == "item":
            return _not("number")
        if method == "tolist":
            return _not("numbers")  # (nested) lists of Python numbers
        if method == "numpy":
            return _not("array")
        if method in ("size", "dim", "numel", "nelement", "element_size", "data_ptr", "stride", "is_contiguous"):
            return _not("number")
        if method == "detach" or method in _INTEGER_CASTS:
            return tensor(False, base.shape, max_dims=base.max_dims)
        if method in AT_LEAST_1D_METHODS and (method in ("flatten", "ravel") or _dims_given(call)):
            shape = "batch"
        elif method in ELEMENTWISE_METHODS or method in SAME_GRAPH_METHODS:
            shape = base.shape
        elif method in VIEW_METHODS:
            shape = base.shape if base.shape != "scalar" or method in ("t", "view_as", "expand_as") else "unknown"
        else:
            shape = "unknown"
        dims = self._dims_after(call, method, base)
        if method in SAME_GRAPH_METHODS or method in VIEW_METHODS or method in ELEMENTWISE_METHODS or method in AT_LEAST_1D_METHODS:
            if base.leaf:  # an op on a leaf that requires grad is recorded: the result has history
                return tensor(False if disabled else True, shape, max_dims=dims)
            return tensor(base.graph, shape, max_dims=dims)
        if method in REDUCTIONS:
            has_dim = call_arg(call, 0, "dim") is not None or call_arg(call, None, "axis") is not None
            graph = False if disabled else (True if base.graph or base.leaf else base.graph)
            return tensor(graph, "unknown" if has_dim else "scalar", max_dims=dims)
        if method in NO_GRAPH_METHODS:
            return tensor(False)
        if is_inplace_method(method):
            return base
        graph = False if disabled else (True if base.graph or base.leaf else base.graph)
        return tensor(graph)

    def _torch_function(self, call: cst.Call, qualified: FrozenSet[str], depth: int, disabled: "_Lazy") -> Value:
        args = [self.value(a.value, depth + 1) for a in call.args if a.keyword is None]
        tensors = [v for v in args if v.is_tensor]
        short = {q.rpartition(".")[2] for q in qualified}
        has_dim = call_arg(call, 1, "dim") is not None
        shape = "scalar" if short & REDUCTIONS and not has_dim else "unknown"
        # ``torch.sum(x)``: the whole tensor reduced, 0-dim (``torch.max(a, b)`` and ``axis=`` excluded).
        dims = 0 if short & REDUCTIONS and len(args) == 1 and _only_dtype_keywords(call) else None
        if short & ELEMENTWISE_METHODS and args and args[0].is_tensor and all(v.not_tensor for v in args[1:]) and not any(a.keyword for a in call.args):
            # ``torch.abs(x)``, ``torch.pow(x, 2)``: the shape of ``x``
            dims, shape = args[0].max_dims, args[0].shape
        if disabled:
            return tensor(False, shape, max_dims=dims)
        if any(v.graph or v.leaf for v in tensors):
            return tensor(True, shape, max_dims=dims)
        if tensors and all(v.graph is False and not v.leaf for v in tensors) and len(tensors) == len(args):
            return tensor(False, shape, max_dims=dims)
        return tensor(None, shape, max_dims=dims)

    def _dims_after(self, call: cst.Call, method: str, base: Value) -> Optional[int]:
        """The bound on the dimensions of ``base.method(...)``: kept by conversions, by
        elementwise methods that broadcast with no tensor, by transposes and
        narrowing; 2 after ``t()``; 1 after ``view(-1)``, ``reshape(-1)``,
        ``flatten()`` and ``ravel()``; 0 after a reduction over everything; one fewer
        after ``select``."""
        args = [a for a in call.args if a.keyword is None]
        if method in ("flatten", "ravel") and not call.args:
            return 1
        if method in ("view", "reshape") and len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star:
            size = call.args[0].value
            if isinstance(size, cst.Integer) or (isinstance(size, cst.UnaryOperation) and isinstance(size.expression, cst.Integer)):
                return 1
        if method in REDUCTIONS and not args and _only_dtype_keywords(call):
            return 0
        dims = base.max_dims
        if dims is None:
            return 2 if method == "t" and not call.args else None
        if method == "t":
            return min(dims, 2)
        if method == "select" and dims >= 1:
            return dims - 1
        if method in SAME_GRAPH_METHODS or method in ("transpose", "permute", "narrow", "squeeze", "contiguous", "detach"):
            return dims
        if method in ELEMENTWISE_METHODS and all(self.value(a.value).not_tensor for a in call.args):
            return dims  # a number broadcast over the receiver leaves its shape
        return None

    def _integer_index(self, expr: cst.Subscript, depth: int) -> bool:
        """``x[0]``, ``x[-1]``, ``x[i]`` with ``i`` a Python number: one integer index."""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index) or expr.slice[0].slice.star:
            return False
        index = expr.slice[0].slice.value
        if isinstance(index, cst.Integer) or (isinstance(index, cst.UnaryOperation) and isinstance(index.expression, cst.Integer)):
            return True
        found = self.value(index, depth + 1)
        return found.not_tensor and found.what == "number"

    def _literal_shape(self, expr: cst.BaseExpression) -> str:
        if isinstance(expr, (cst.Integer, cst.Float)) or (
            isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float))
        ):
            return "scalar"
        return "unknown"

    def _dataclass_names(self) -> FrozenSet[str]:
        if self._dataclasses is None:
            found = set()
            for stmt in self.model.module.body:
                if isinstance(stmt, cst.ClassDef):
                    for dec in stmt.decorators:
                        d = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
                        if last_name(d) == "dataclass":
                            found.add(stmt.name.value)
            self._dataclasses = frozenset(found)
        return self._dataclasses

    def returns(self, func: cst.FunctionDef, depth: int = 0) -> Value:
        """What ``func`` returns, joined over its ``return`` statements (a summary,
        memoised; a recursive call's value is unknown)."""
        key = id(func)
        found = self._summaries.get(key)
        if found is not None:
            return found
        self._summaries[key] = UNKNOWN  # recursion
        values = [
            self.value(node.value, depth + 1) if node.value is not None else _not("none")
            for node in walk(func.body)
            if isinstance(node, cst.Return)
        ]
        found = join(values) if values else _not("none")
        self._summaries[key] = found
        return found

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

    # -- names ---------------------------------------------------------------------------

    def value_of(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The expression ``name`` certainly holds, if a plain assignment gave it (an
        augmented assignment in between edits the same object)."""
        b = self.model.scopes.same_object(name)
        return b.value if b is not None and b.kind == "assign" else None

    # -- no graph: factories, batches, loaders ----------------------------------------------

    def carries_no_graph(
        self, expr: cst.BaseExpression, scope: cst.CSTNode, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` evidently holds no autograd history: a tensor factory call,
        ``torch.from_numpy``, a DataLoader batch, ``.detach()``, a legacy ``Variable(...)``
        (which detaches), or shape/dtype/device conversions of those, followed through
        simple assignments (``x = x.cuda()`` included)."""
        if _depth > 8:
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
        if _depth > 8:
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
        if _depth > 4:
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

    # -- storage aliases -----------------------------------------------------------------------

    def is_tensor_data(self, node: cst.CSTNode) -> bool:
        """``x.data`` read from a tensor as far as the code shows (not ``torch.utils.data``,
        not ``dataset.data`` or ``self.data``)."""
        if not is_tensor_data_syntax(node):
            return False
        assert isinstance(node, cst.Attribute)
        receiver = node.value
        return not (isinstance(receiver, (cst.Name, cst.Attribute)) and self.model.names.is_imported(receiver))

    def storage_alias(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[StorageAlias]:
        """Whether ``expr`` is a ``.detach()`` or ``.data`` alias of another tensor: the
        call/attribute itself, a view of one (``.view()``, ``[0]``, ``.t()``...), or a
        variable certainly bound to one. Copies (``.clone()``) and conversions that may
        or may not copy (``.cpu()``, ``.to()``, ``.float()``) are not aliases."""
        if _depth > 8:
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

    # -- autograd history ----------------------------------------------------------------------

    def graph_source(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward or loss call that evidently gives ``expr`` autograd history, or None.

        Evidence: a call of a model or loss (``model(x)``, ``criterion(out, y)``,
        ``F.cross_entropy(...)``, a name bound to an ``nn`` module), and arithmetic,
        indexing, attributes (``outputs.loss``) and graph-keeping methods
        (``.mean()``, ``.cpu()``) of such or of a leaf that requires grad, followed
        through the bindings that may reach a name. Nothing computed under
        no-grad counts, nor ``.item()``/``.detach()``/``.data``/``float()``,
        comparisons, ``argmax`` and other results without history. A leaf itself
        has no history."""
        if _depth > 10:
            return None
        if isinstance(expr, cst.Call):
            return self._call_graph_source(expr, _depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in NO_GRAPH_ATTRIBUTES:
                return None
            return self._operand_graph_source(expr.value, _depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._operand_graph_source(expr.value, _depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._operand_graph_source(expr.left, _depth + 1) or self._operand_graph_source(expr.right, _depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return None
            return self._operand_graph_source(expr.expression, _depth + 1)
        if isinstance(expr, cst.Name):
            return self._name_graph_source(expr, _depth)
        return None

    def _operand_graph_source(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.CSTNode]:
        return self.graph_source(expr, depth) or self.requires_grad_leaf(expr, depth)

    def _proven(self, compute: Callable[[], _T]) -> _T:
        """``compute()`` with graph evidence limited to what types prove (see
        ``proven_graph_source``); in the preview tier, as ``graph_source`` has it."""
        if self.model.preview or not self._by_name:
            return compute()
        saved = self._graph_by_name, self._forward_outputs
        self._graph_by_name, self._forward_outputs = self._proven_memos
        self._by_name = False
        try:
            return compute()
        finally:
            self._graph_by_name, self._forward_outputs = saved
            self._by_name = True

    def proven_graph_source(self, expr: cst.BaseExpression) -> Optional[cst.CSTNode]:
        """``graph_source`` without guesses from names: the history must come from a
        forward of what is proven a module (an ``nn.*`` constructor, a class whose
        bases reach ``nn.Module`` in the project, ``self(...)``), a torch loss or
        function, a leaf that requires grad, or a function of the file returning
        such, never from a callee named like a model or a loss (``model(x)`` for a
        parameter ``model`` of unknown type, ``criterion(out, y)``,
        ``trainer.train_step(b)``, ``model.fc(x)``). With ``preview`` on, the guesses
        count too."""
        return self._proven(lambda: self.graph_source(expr))

    def proven_forward_output(self, expr: cst.BaseExpression) -> Optional[cst.CSTNode]:
        """``forward_output`` with the evidence of ``proven_graph_source``."""
        return self._proven(lambda: self.forward_output(expr))

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
            found = self._proven_tensors[key] = _depth <= 10 and self._prove_tensor(expr, _depth)
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
        if depth > 8 or not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
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

    def requires_grad_leaf(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The call that made ``expr`` a leaf requiring grad (``torch.zeros(3, requires_grad=True)``,
        ``nn.Parameter(t)``, ``t.requires_grad_()``), directly or through a variable."""
        if _depth > 10:
            return None
        if isinstance(expr, cst.Name):
            value = self.value_of(expr)
            return self.requires_grad_leaf(value, _depth + 1) if value is not None else None
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        names = self.model.names.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) else frozenset()
        if names & REQUIRES_GRAD_FACTORIES:
            flag = call_arg(expr, None, "requires_grad")
            return expr if flag is not None and bool_value(flag.value) is not False else None
        if names & _PARAMETER:
            flag = call_arg(expr, 1, "requires_grad")
            return expr if flag is None or bool_value(flag.value) is not False else None
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            flag = call_arg(expr, 0, "requires_grad")
            return expr if flag is None or bool_value(flag.value) is not False else None
        return None

    def _call_graph_source(self, call: cst.Call, depth: int) -> Optional[cst.CSTNode]:
        func = call.func
        names_ = self.model.names
        if isinstance(func, cst.Name) and func.value in PYTHON_VALUE_FUNCS and not names_.is_imported(func):
            return None
        # Every name asked about below is torch's; ``F.mse_loss(o, y).abs`` is a method of
        # what the call returned, not a torch function, whatever its dotted name reads.
        names = names_.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) and root_name(func) is not None else frozenset()
        if names & (TENSOR_FACTORIES | VARIABLE) or self.carries_no_graph(call, self.tree.function_scope(call)):
            return None
        if self.model.gradmode.grad_disabled(call) is True:
            return None
        if names & LOSS_FUNCTIONS:
            return call
        if any(n.startswith("torch.") for n in names):  # torch.mean(loss), torch.stack(outs), F.relu(h)
            return self._args_graph_source(call, depth)
        if isinstance(func, cst.Attribute):
            if func.attr.value in NO_GRAPH_METHODS or func.attr.value in PYTHON_VALUE_METHODS:
                return None
            if root_name(func.value) is not None and names_.is_imported(func.value):
                return None  # a function of some other module: unknown
            # A method keeps its receiver's history (loss.mean(), out.cpu(), w.pow(2));
            # else the receiver may be a model (self.model(x) is an attribute call too).
            found = self._operand_graph_source(func.value, depth + 1)
            if found is not None:
                return found
        if isinstance(func, cst.Name) and func.value == "self" and self.model.modules.forward(call) is not None:
            # ``self(x)`` in a module's method runs the class's forward: what it returns decides
            forward = self._own_forward(call)
            return call if forward is None or self._returns_history(forward, depth) else None
        local = self.model.calls.local_function(call)
        if local is not None:  # a function of this file: what it returns decides
            return call if self._returns_history(local, depth) else None
        method = self.model.modules.method_forward(call)
        if method is not None:
            # ``clf.predict(x)``: a method of a module class of the file that runs its
            # layers; what it returns decides (``self(x).argmax(-1)`` has no history)
            return call if self._returns_history(method, depth) else None
        if self._library_number_method(call):
            return None
        if isinstance(func, (cst.Name, cst.Attribute)) and self.model.modules.is_module(func):
            return call
        if not self._by_name:
            return None  # what follows is judged from names: the preview tier's evidence
        if isinstance(func, cst.Attribute) and func.attr.value in LOSS_STEPS and call.args:
            return call  # ``trainer.train_step(batch)``: the step's loss, by the framework's contract
        if looks_forward(last_name(func)):
            return call
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value not in MODULE_API
            and not FACTORY_NAME.match(func.attr.value.lstrip("_"))
            and call.args
            and looks_forward(last_name(func.value))
        ):
            # ``model.fc(x)``, ``self.model.encode(x)``: a submodule or method of a model;
            # not ``model.load_pretrained(path)``, ``model.init_weights()``: set-up, no forward;
            # not ``demo_model.predictor()``: a forward takes inputs
            return call
        return None

    def _own_forward(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The ``forward`` defined by the class whose method makes ``call``, if it has one."""
        cls = self.tree.enclosing_class(call)
        return class_forward(cls) if cls is not None else None

    def _returns_part_history(self, func: cst.FunctionDef, path: Sequence[object], depth: int) -> bool:
        """Whether the part ``path`` of what ``func`` returns carries history, on some return."""
        if id(func) in self._returns_checked:
            return False  # recursion
        self._returns_checked.add(id(func))
        try:
            return any(
                self._part_graph_source(node.value, path, depth + 1) is not None
                for node in walk(func)
                if isinstance(node, cst.Return) and node.value is not None
            )
        finally:
            self._returns_checked.discard(id(func))

    def _returns_history(self, func: cst.FunctionDef, depth: int) -> bool:
        if id(func) in self._returns_checked:
            return False  # recursion
        self._returns_checked.add(id(func))
        try:
            for node in walk(func):
                if isinstance(node, cst.Return) and node.value is not None:
                    value = node.value
                    values = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
                    if any(self.graph_source(v, depth + 1) is not None for v in values):
                        return True
            return False
        finally:
            self._returns_checked.discard(id(func))

    def _args_graph_source(self, call: cst.Call, depth: int) -> Optional[cst.CSTNode]:
        for arg in call.args:
            values = [el.value for el in arg.value.elements] if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
            for value in values:
                found = self._operand_graph_source(value, depth + 1)
                if found is not None:
                    return found
        return None

    def _name_graph_source(self, name: cst.Name, depth: int) -> Optional[cst.CSTNode]:
        # Memoised per use, with a cycle guard: ``h = h + layer(h)`` in a loop refers to itself.
        return _memo_shallow(self._graph_by_name, id(name), depth, lambda: self._resolve_name_graph_source(name, depth))

    def _resolve_name_graph_source(self, name: cst.Name, depth: int) -> Optional[cst.CSTNode]:
        reaching = self.model.scopes.reaching(name)
        if not reaching.bindings:
            return None
        found: Optional[cst.CSTNode] = None
        for cand in reaching.bindings:
            if cand.form == "aug":
                target = cand.node.target  # type: ignore[union-attr]
                src = self._name_graph_source(target, depth + 1) if isinstance(target, cst.Name) else None
                if src is None:
                    return None  # ``loss += reg``: the same tensor, with more history
                found = found or src
                continue
            if cand.kind == "for" and cand.value is not None:
                src = self._loop_item_graph_source(cand, depth)
            elif cand.kind == "unpack" and cand.value is not None:
                path = _target_path(cand)
                src = self._part_graph_source(cand.value, path, depth + 1) if path is not None else None
            elif cand.kind == "assign" and cand.value is not None:
                src = self.graph_source(cand.value, depth + 1)
            else:
                return None
            if src is None:
                return None
            found = found or src
        return found

    # -- forward outputs ---------------------------------------------------------------------

    def forward_output(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward or loss call whose output ``expr`` may be: a non-leaf tensor with
        history (an activation, which the op that made it or a later one may have saved
        for backward), as opposed to a leaf (a parameter, a buffer, a fresh or loaded
        tensor), which no recorded op produced. None when nothing shows one.

        Unlike ``graph_source`` (every binding that may reach a name must give history),
        one binding suffices: ``x = model(x)`` on one path makes ``x`` possibly an
        activation. A parameter of a function of this file counts when a call of that
        function in this file passes such a value for it (``delta = net(z);
        scale(delta)`` for ``def scale(delta)``). A view of such a tensor is its
        storage: basic indexing (integers, slices, ``...``, ``None``, names holding
        numbers), ``.T``, ``.view()``/``.transpose()``... ; advanced indexing copies."""
        expr = self._viewed(expr)
        if isinstance(expr, (cst.Subscript, cst.Call)):
            return None  # a copy made right here (``h[idx]``, ``h.clone()``): no op saved it
        return self._held_forward_output(expr, _depth)

    def _viewed(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """The tensor whose storage the view ``expr`` is (``expr`` itself if not a view)."""
        while True:
            if isinstance(expr, cst.Subscript) and self._view_index(expr):
                expr = expr.value
            elif isinstance(expr, cst.Attribute) and expr.attr.value in VIEW_ATTRIBUTES:
                expr = expr.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in VIEW_METHODS:
                expr = expr.func.value
            else:
                return expr

    def _held_forward_output(self, expr: cst.BaseExpression, _depth: int) -> Optional[cst.CSTNode]:
        """``forward_output`` of a value bound to a name (``h = model(x)[idx]`` binds an
        activation, whether or not it is a copy)."""
        if _depth > 8:
            return None
        expr = self._viewed(expr)
        if not isinstance(expr, cst.Name):
            return self.graph_source(expr) or self._op_forward_output(expr, _depth)
        # ``h = h.view(...)`` in a loop reaches itself: the memo's guard stops it.
        return _memo_shallow(self._forward_outputs, id(expr), _depth, lambda: self._name_forward_output(expr, _depth))

    def _op_forward_output(self, expr: cst.BaseExpression, _depth: int) -> Optional[cst.CSTNode]:
        """An op recorded on a possible activation is one too: ``torch.tanh(d)``,
        ``d * 2``, ``d.clamp(0, 1)`` for ``d`` a parameter some caller passes a forward's
        output for (what ``graph_source``, which asks every binding, cannot show)."""
        if isinstance(expr, cst.BinaryOperation):
            operands = [expr.left, expr.right]
        elif isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            operands = [expr.expression]
        elif isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Name, cst.Attribute)):
            func = expr.func
            names = self.model.names
            if self.carries_no_graph(expr, self.tree.function_scope(expr)) or self.model.gradmode.grad_disabled(expr) is True:
                return None
            if any(q.startswith("torch.") for q in names.qualnames_in(func, TORCH)):
                operands = [a.value for a in expr.args]  # ``torch.tanh(d)``, ``F.pad(d, p)``
            elif isinstance(func, cst.Attribute) and not names.is_imported(func.value) and func.attr.value not in (
                NO_GRAPH_METHODS | PYTHON_VALUE_METHODS
            ):
                operands = [func.value]  # ``d.clamp(0, 1)``, ``d.cuda()``
            else:
                return None
        else:
            return None
        for operand in operands:
            found = self._held_forward_output(operand, _depth + 1)
            if found is not None:
                return found
        return None

    def _name_forward_output(self, expr: cst.Name, _depth: int) -> Optional[cst.CSTNode]:
        for b in self.model.scopes.reaching(expr).bindings:
            found: Optional[cst.CSTNode] = None
            if b.form == "param" and isinstance(b.node, cst.Param):
                found = self.argument_forward_output(b.node, _depth + 1)
            elif b.kind == "assign" and b.form != "aug" and b.value is not None:
                found = self._held_forward_output(b.value, _depth + 1)
            elif b.kind == "unpack" and isinstance(b.value, cst.Call):
                found = self.graph_source(b.value)  # ``out, h = rnn(x)``
            if found is not None:
                return found
        return None

    def argument_forward_output(self, param: cst.Param, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward output (``forward_output``) that some call in this file passes for
        ``param`` of a function of this file; None when none does or the function's
        callers are unknown (``calls.arguments_for``)."""
        if _depth > 8:
            return None
        for _call, arg in self.model.calls.arguments_for(param) or ():
            found = self._held_forward_output(arg, _depth + 1)
            if found is not None:
                return found
        return None

    def _view_index(self, expr: cst.Subscript) -> bool:
        """Indexing that returns a view: integers (literal or held by a name, such as a
        ``range`` loop variable), slices, ``...`` and ``None``."""
        if is_basic_index(expr):
            return True
        for el in expr.slice:
            sl = el.slice
            if isinstance(sl, cst.Slice):
                continue
            value = cast(cst.Index, sl).value
            if isinstance(value, (cst.Integer, cst.Ellipsis)) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if not (isinstance(value, cst.Name) and self.value(value).what == "number"):
                return False
        return True

    def _loop_item_graph_source(self, b: Binding, depth: int) -> Optional[cst.CSTNode]:
        """``for name, loss in losses.items()`` / ``for loss in losses.values()``: the
        values of a mapping that carries history (a helper's dict of losses, a model's
        dict of outputs). Other loop items (batches, parameters) are not followed."""
        iterable = b.value
        if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args):
            return None
        method = iterable.func.attr.value
        path = _target_path(b)
        if method == "values" and path == ():
            return self._part_graph_source(iterable.func.value, (_VALUES,), depth + 1)
        if method == "items" and path is not None and path[:1] == (1,):
            return self._part_graph_source(iterable.func.value, (_VALUES, *path[1:]), depth + 1)
        return None

    def _part_graph_source(self, expr: cst.BaseExpression, path: Sequence[object], depth: int) -> Optional[cst.CSTNode]:
        """The graph evidence of the part of ``expr`` that ``path`` selects: tuple
        positions (``a, b = f()`` takes position 0 and 1) and ``_VALUES``, any value of
        a mapping. A function of the file is summarised per returned part, so that
        ``loss, acc = step(x)`` gives ``loss`` the history of ``step``'s first returned
        element and ``acc`` that of its second; a tuple or dict display by its
        elements; a name by the expression it certainly holds. Anything else (a
        forward's output, a loss function's tuple) passes its history to every part."""
        if depth > 10:
            return None
        if not path:
            return self.graph_source(expr, depth)
        step, rest = path[0], path[1:]
        if isinstance(expr, (cst.Tuple, cst.List)):
            if step == _VALUES or any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return None
            if not isinstance(step, int) or step >= len(expr.elements):
                return None
            return self._part_graph_source(expr.elements[step].value, rest, depth + 1)
        if isinstance(expr, cst.Dict):
            if step != _VALUES:
                return None
            for el in expr.elements:
                if isinstance(el, cst.DictElement):
                    found = self._part_graph_source(el.value, rest, depth + 1)
                    if found is not None:
                        return found
            return None
        if isinstance(expr, cst.Name):
            held = self.value_of(expr)
            if held is not None:
                return self._part_graph_source(held, path, depth + 1)
            return self.graph_source(expr, depth)
        if isinstance(expr, cst.Call):
            local = self.model.calls.local_function(expr)
            if local is not None:
                return expr if self._returns_part_history(local, path, depth) else None
        return self.graph_source(expr, depth)


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


# A step of a part path that selects any value of a mapping (``d.values()``).
_VALUES = "values"


def _target_path(b: Binding) -> Optional[Tuple[int, ...]]:
    """Where the name ``b`` binds sits in its unpacking target: ``()`` for the whole
    target, ``(1,)`` for ``b`` in ``a, b = ...``, ``(1, 0)`` for ``x`` in
    ``i, (x, y) = ...``; None past a starred element or when it is not found."""
    node, name = b.node, b.name
    if name is None:
        return None
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.For, cst.CompFor)):
        targets = [node.target]
    else:
        return None

    def find(target: cst.BaseExpression) -> Optional[Tuple[int, ...]]:
        if target is name:
            return ()
        if isinstance(target, (cst.Tuple, cst.List)):
            for i, el in enumerate(target.elements):
                if isinstance(el, cst.StarredElement):
                    return None
                found = find(el.value)
                if found is not None:
                    return (i, *found)
        return None

    for target in targets:
        found = find(target)
        if found is not None:
            return found
    return None


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


def _only_dtype_keywords(call: cst.Call) -> bool:
    """No keyword but ``dtype`` (``x.sum(dtype=torch.float64)`` still reduces everything)."""
    return all(a.keyword is None or a.keyword.value == "dtype" for a in call.args) and not any(a.star for a in call.args)


def _dims_given(call: cst.Call) -> bool:
    """``x.view(-1)``, ``x.reshape(n, -1)``: sizes given as integers (not ``()``), so
    the result has at least one dimension."""
    args = [a for a in call.args if a.keyword is None and not a.star]
    return bool(args) and all(
        isinstance(a.value, (cst.Integer, cst.Name, cst.Attribute, cst.Call))
        or (isinstance(a.value, cst.UnaryOperation) and isinstance(a.value.expression, cst.Integer))
        for a in args
    )


# Methods that return a (values, indices) pair: with a dimension for ``max``/``min``/
# ``median``/``mode`` (without one, ``max`` and ``min`` return one tensor), always for the others.
_PAIR_WITH_DIM = frozenset({"max", "min", "median", "mode"})
_PAIR_ALWAYS = frozenset({"sort", "topk", "kthvalue", "cummax", "cummin"})


def _pair_indices(expr: cst.Subscript) -> bool:
    """``out.max(1)[1]``, ``scores.topk(5)[1]``: the indices half of such a pair."""
    call = expr.value
    if len(expr.slice) != 1 or not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    index = expr.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "1"):
        return False
    method = call.func.attr.value
    if method in _PAIR_ALWAYS:
        return True
    if method not in _PAIR_WITH_DIM or not call.args:
        return False
    # ``a.max(1)``, ``a.max(dim=-1)``; ``a.max(b)`` of a tensor ``b`` is the elementwise maximum.
    first = call.args[0]
    dim = first.value
    if isinstance(dim, cst.UnaryOperation) and isinstance(dim.operator, cst.Minus):
        dim = dim.expression
    return (first.keyword is not None and first.keyword.value == "dim") or (first.keyword is None and isinstance(dim, cst.Integer))


def _memo_shallow(memo: Dict[int, Any], key: int, depth: int, compute: Callable[[], Optional[_T]]) -> Optional[_T]:
    """``compute()`` memoised under ``key``, with a cycle guard (a question that reaches
    itself gets None); answers found deeper than 2 may have been cut short by the depth
    limit and are not remembered."""
    if key in memo:
        known: Optional[_T] = memo[key]
        return known
    memo[key] = None
    found = compute()
    if depth <= 2:
        memo[key] = found
    else:
        del memo[key]
    return found
