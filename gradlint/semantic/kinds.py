"""The abstract value of an expression (``value(expr)``): is it a tensor, does it
carry an autograd graph, is it 0-dim; numbers, strings, configs, modules and
the other things that are not tensors.

The layer of ``values.Values`` above ``no_graph`` and ``loss_modules`` (a batch drawn from a loader
is a tensor without history) and below ``graph``, whose evidence reads values.
``_call`` and ``_name`` recurse into ``value`` for operands and bindings, so
these methods stay one class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, Optional, Sequence, Set, Tuple

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.edits import Edits, edits_in, may_follow
from gradlint.semantic.frameworks import NUMBER_METHODS
from gradlint.semantic.lattice import UNKNOWN, Value, _not, bounded, join, tensor
from gradlint.semantic.loss_modules import LossModules
from gradlint.semantic.scopes import Binding
from gradlint.semantic.syntax import bool_value, call_arg, is_inplace_method, last_name
from gradlint.semantic.torch_api import (
    ARGPARSE,
    AS_TENSOR,
    AT_LEAST_1D_METHODS,
    CONFIG_NAME,
    ELEMENTWISE_METHODS,
    FROM_NUMPY,
    LOSS_CALLEE_NAME,
    LOSS_FUNCTIONS,
    NO_GRAPH_FUNCTIONS,
    NO_GRAPH_METHODS,
    NOT_TENSOR_ATTRIBUTES,
    OPTIMIZER_PREFIX,
    PIL_IMAGES,
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

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel
    from gradlint.semantic.names import Names

# Methods of a numpy array that return an array (or a numpy scalar) again.
_ARRAY_METHODS = frozenset(
    "astype reshape squeeze flatten ravel copy transpose swapaxes mean sum max min argmax argmin round clip "
    "cumsum std var prod".split()
)
_PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
_NUMBER_FUNCS = frozenset({"float", "int", "len", "round", "bool", "abs", "sum", "max", "min"})
_STRING_FUNCS = frozenset({"str", "repr", "format"})
# Methods of ``str`` that tensors do not have.
_STR_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "capitalize", "title", "startswith", "endswith", "join", "format"})
_CONSTANT_FORMS = frozenset({"def", "class", "import"})  # bindings whose ``Kinds._binding`` is fixed
# Casts to an integer or boolean dtype: same shape, and such tensors never carry a graph.
_INTEGER_CASTS = frozenset({"int", "long", "short", "byte", "char", "bool"})


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


class Kinds(LossModules):
    """The abstract values (the second layer of ``values.Values``)."""

    def __init__(self, model: "SemanticModel") -> None:
        super().__init__(model)
        self._values: Dict[int, Value] = {}
        self._in_progress: Set[int] = set()
        self._summaries: Dict[int, Value] = {}
        self._dataclasses: Optional[FrozenSet[str]] = None
        self._edited: Dict[int, Edits] = {}
        self._joined: Dict[int, Tuple[Tuple[Binding, ...], Value]] = {}  # id -> (bindings, join)

    # -- the abstract value ---------------------------------------------------------------

    def value(self, expr: cst.BaseExpression, _depth: int = 0) -> Value:
        key = id(expr)
        found = self._values.get(key)
        if found is not None:
            return found
        if key in self._in_progress or _depth > bounds.KIND_STEPS:
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
            if _pair_indices(expr, self.model.names):
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
                return self._join_bindings(seen.bindings, depth)
            return UNKNOWN
        if reaching.unbound:
            return UNKNOWN
        accumulated = self._accumulated(reaching.bindings, depth)
        if accumulated is not None:
            return accumulated
        values = [self._binding(b, depth) for b in reaching.bindings]
        found = join(values)
        if found.is_tensor and found.graph is False and self._edited_since(name, reaching.bindings):
            # ``out[:, i] = layer(h)``, ``buf.add_(x)``: an edit can give it history
            return tensor(None, found.shape, found.leaf)
        return found

    def _join_bindings(self, bindings: Tuple[Binding, ...], depth: int) -> Value:
        # A function body sees every module-level binding of a name it reads (hundreds in a file of many
        # modules; one tuple per name from ``Scopes.visible``): the join is kept per tuple once no binding's
        # value can change (a def, class or import, or a value ``value`` stored, which a cut-short one is not).
        known = self._joined.get(id(bindings))
        if known is not None and known[0] is bindings:
            return known[1]
        found = join(self._binding(b, depth) for b in bindings)
        if all(b.form in _CONSTANT_FORMS or (b.form != "aug" and b.kind == "assign" and id(b.value) in self._values) for b in bindings):
            self._joined[id(bindings)] = (bindings, found)
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

    def _edited_since(self, name: cst.Name, bindings: Iterable[Binding]) -> bool:
        """Whether an in-place edit of ``name``'s scope (``out[:, i] = h``,
        ``buf.add_(x)``) may change the value one of ``bindings`` gave it."""
        scope = self.tree.function_scope(name)
        found = self._edited.get(id(scope))
        if found is None:
            found = self._edited[id(scope)] = edits_in(scope if isinstance(scope, cst.Module) else scope.body)
        return any(may_follow(self.tree, edit, bindings) for edit in found.get(name.value, ()))

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
            if b.value is None:
                return UNKNOWN
            found = self._arith_values(before, self.value(b.value, depth + 1))
            if before.is_tensor and before.shape == "scalar" and found.shape != "scalar":
                # ``kl /= n``: an augmented operator edits a tensor in place, which never
                # changes its shape (torch raises where the operand would broadcast it).
                # Only a 0-dim shape is carried: "batch" may be a forward's guess.
                return tensor(found.graph if found.is_tensor else before.graph, "scalar", max_dims=before.max_dims)
            return found
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
            # ``total += n * loss.data``: 0-dim tensors and numbers add up to a 0-dim tensor.
            scalar = all(v.shape == "scalar" if v.is_tensor else v.not_tensor and v.what in ("number", "bool") for v in (a, b))
            return tensor(True if any(v.graph or v.leaf for v in tensors) else None, "scalar" if scalar else "unknown")
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
        if _pair_indices(expr, names):
            return tensor(False, "unknown", False)  # ``torch.max(out, 1).indices``: no history
        if _dotted(expr) and names.is_imported(expr):
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
        if qualified_all & PIL_IMAGES:
            return _not("image")
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
            if base.not_tensor and base.what == "array":
                # A tensor's ``.numpy()``, a numeric array: ``out.detach().numpy().tolist()``.
                if method in ("tolist", "item"):
                    return _not("numbers" if method == "tolist" else "number")
                return _not("array") if method in _ARRAY_METHODS else UNKNOWN
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
            # A module class of the file whose forward reduces (``return loss.mean()``) returns its 0-dim
            # value; one of another file, whose forward is not read, a shape unknown; any other a batch.
            returned = self._own_class_call(func, depth) if module is not None else None
            shape = "scalar" if returned is not None and returned.shape == "scalar" else "batch"
            if returned is None and module is not None and self.model.modules.of_other_files(module):
                shape = "unknown"
            return tensor(False if disabled or records is False else True, shape)
        local = self.model.calls.local_function(call)
        if local is not None:
            return self.returns(local, depth)
        if LOSS_CALLEE_NAME.search(last_name(func) or ""):
            if self.foreign_callee(func) or self._project_class_callee(func):
                # ``criterion = CTCLoss()`` of warp-ctc, or a loss class of another file of
                # the project: the name says loss, but the class decides what its call
                # returns (warp-ctc's has one dimension).
                return UNKNOWN
            own = self._own_class_call(func, depth)
            if own is not None:
                # ``criterion = FocalLoss()`` of this file: what its forward returns, not what its name suggests.
                return own
            # The name is no proof of a 0-dim result (issue 26): only the preview tier
            # takes it for one; the default tier keeps a tensor of unknown shape.
            return tensor(False if disabled else True, "scalar" if self.model.preview or self.model.legacy_code else "unknown")
        return UNKNOWN

    def _own_class_call(self, func: cst.BaseExpression, depth: int) -> Optional[Value]:
        """What calling ``func`` returns where it certainly holds an instance of a class
        of this file (``criterion = FocalLoss()``, ``self.loss = FocalLoss()``): the join
        of what its ``__call__`` or ``forward`` returns; None where it may hold anything
        else."""
        calls = self.model.calls
        classes = calls._instance_classes(func, 0) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if not classes or depth > bounds.GRAPH_STEPS:
            return None
        found = []
        for cls in classes:
            method = calls._method_of(cls, "__call__", 0) or calls._method_of(cls, "forward", 0)
            if method is None:
                return UNKNOWN
            found.append(self.returns(method, depth + 1))
        return join(found)

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
        if disabled or short & NO_GRAPH_FUNCTIONS:
            return tensor(False, shape, max_dims=dims)  # ``torch.multinomial(p, 1)``: indices, no history
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


def _dotted(expr: cst.BaseExpression) -> bool:
    """``a.b.c``: names and attributes only (``nn.MSELoss()(x, y).data`` is a call's
    attribute, not an imported module's, though its full name starts with one)."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


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


def _pair_indices(expr: cst.BaseExpression, names: "Names") -> bool:
    """``out.max(1)[1]``, ``torch.max(out, dim=1).indices``, ``scores.topk(5)[1]``: the
    indices half of such a pair."""
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "1"):
            return False
    elif not (isinstance(expr, cst.Attribute) and expr.attr.value == "indices"):
        return False
    call = expr.value
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    # ``torch.max(x, 1)`` takes its dimension second; ``torch.max(a, b)`` of a tensor ``b`` is elementwise.
    function = bool(names.qualnames_in(call.func, TORCH))
    method = call.func.attr.value
    if method in _PAIR_ALWAYS:
        return True
    first = call_arg(call, 1 if function else 0, "dim")
    if method not in _PAIR_WITH_DIM or first is None:
        return False
    dim = first.value
    if isinstance(dim, cst.UnaryOperation) and isinstance(dim.operator, cst.Minus):
        dim = dim.expression
    return first.keyword is not None or isinstance(dim, cst.Integer)
