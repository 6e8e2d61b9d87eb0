"""The abstract value of an expression: ``Value``, and what values ``join`` to.

Plain data, without the file: ``kinds.Kinds`` computes the ``Value`` of an
expression, ``values.Values`` is what rules ask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional


@dataclass(frozen=True)
class Value:
    """What an expression evaluates to, as far as the file shows.

    ``kind``: "tensor", "not_tensor" or "unknown". For tensors, ``graph`` is True
    (carries autograd history), False (none) or None (maybe); ``leaf`` is a leaf
    that requires grad (``nn.Parameter``, ``torch.zeros(..., requires_grad=True)``);
    ``shape`` is "scalar" (0-dim), "batch" or "unknown". For the rest, ``what``
    says what it is: "number", "numbers" (lists of them), "string", "bool",
    "config", "namespace", "parser", "module", "optimizer", "scheduler",
    "container" (may hold tensors), "array", "image" (Pillow's), "function", "class", "none",
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
