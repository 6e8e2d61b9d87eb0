"""The torch-aware facts rules share about one file.

LibCST's qualified names resolve imports (``from torch import no_grad as ng``)
but say nothing about receivers (what ``loss`` in ``loss.backward()`` is).
This module answers the questions gradient rules keep asking, once, so that
rules do not each keep their own half-right version:

- is this expression a grad-mode guard (``torch.no_grad()``, ...), and which?
- are gradients disabled at this node (``with`` blocks, decorators, a bare
  ``torch.set_grad_enabled(False)`` earlier in the block)?
- does this code need gradients (backward, ``autograd.grad``, an optimizer step)?
- does this expression evidently carry no autograd graph (a tensor factory,
  a DataLoader batch, ``.cuda()``/``.to()`` of those)?
- under which name is ``torch`` imported, for code that fixes insert?

Every answer here is conservative where it has to guess; the rules' catalog
entries name the heuristics under *Known problems*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple, Union

import libcst as cst

from gradlint.fixes import ImportSpec
from gradlint.traversal import children

NO_GRAD = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
INFERENCE_MODE = frozenset(
    {"torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"}
)
ENABLE_GRAD = frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})
SET_GRAD_ENABLED = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
)
VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
AUTOGRAD_GRAD = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
DATALOADER = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
GRAD_MODE_GUARDS = NO_GRAD | INFERENCE_MODE | ENABLE_GRAD | SET_GRAD_ENABLED

_TENSOR_FACTORY_NAMES = (
    "tensor as_tensor from_numpy zeros ones empty full rand randn randint randperm arange linspace "
    "logspace eye zeros_like ones_like empty_like full_like rand_like randn_like randint_like "
    "Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor LongTensor IntTensor ShortTensor "
    "ByteTensor CharTensor BoolTensor"
).split()
TENSOR_FACTORIES = frozenset(f"torch.{n}" for n in _TENSOR_FACTORY_NAMES) | frozenset(
    f"torch.cuda.{n}" for n in _TENSOR_FACTORY_NAMES if n.endswith("Tensor") and n != "Tensor"
)
# Factories that accept ``requires_grad=`` (floating point results).
REQUIRES_GRAD_FACTORIES = frozenset(
    f"torch.{n}"
    for n in "tensor zeros ones empty full rand randn arange linspace logspace eye zeros_like ones_like "
    "empty_like full_like rand_like randn_like".split()
)
_NO_GRAPH_CALLS = TENSOR_FACTORIES | VARIABLE
# Methods that return a tensor with no more graph than their receiver has (their
# arguments are devices, dtypes, shapes or numbers, never other tensors).
CONVERSIONS = frozenset(
    "cuda cpu to float double half bfloat16 long int short byte bool type contiguous pin_memory "
    "view reshape unsqueeze squeeze permute transpose t expand flatten clone "
    "fill_ zero_ normal_ uniform_ random_ bernoulli_ exponential_ resize_".split()
)

_OPTIMIZER_NAME = re.compile(r"optim|(^|_)opt(_|$)|^opt[gd]$")
_LOADER_NAME = re.compile(r"loader", re.IGNORECASE)


@dataclass(frozen=True)
class Guard:
    """A grad-mode context manager or decorator expression."""

    kind: str  # "no_grad" | "inference_mode" | "enable_grad" | "set_grad_enabled"
    called: bool  # ``torch.no_grad()`` rather than ``torch.no_grad``
    # True: gradients are off inside; False: on; None: decided at run time.
    disables: Optional[bool]


Scope = Union[cst.Module, cst.FunctionDef, cst.Lambda]


@dataclass(frozen=True)
class Binding:
    """One way a name gets a value in a scope."""

    kind: str  # "assign" | "unpack" | "for" | "param" | "other"
    value: Optional[cst.BaseExpression] = None
    node: Optional[cst.CSTNode] = None


def last_name(expr: cst.BaseExpression) -> Optional[str]:
    """``self.model.encoder`` -> ``encoder``; ``model`` -> ``model``; else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def is_optimizer_name(expr: cst.BaseExpression) -> bool:
    name = last_name(expr)
    return bool(name) and bool(_OPTIMIZER_NAME.search(name.lower()))  # type: ignore[union-attr]


def bool_value(expr: cst.BaseExpression) -> Optional[bool]:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def call_arg(call: cst.Call, position: Optional[int], keyword: Optional[str]) -> Optional[cst.Arg]:
    """The argument passed as ``keyword=`` or at ``position`` (no star-args), if any."""
    index = 0
    for arg in call.args:
        if arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            return None
        if position is not None and index == position:
            return arg
        index += 1
    return None


class Semantic:
    def __init__(self, ctx) -> None:  # ctx: gradlint.rule.FileContext
        self.ctx = ctx
        self._bindings: Dict[int, Dict[str, List[Binding]]] = {}
        self._torch_ref: Optional[Tuple[str, bool]] = None

    # -- names --------------------------------------------------------------

    def is_call_to(self, node: cst.CSTNode, names: FrozenSet[str]) -> bool:
        return isinstance(node, cst.Call) and self.ctx.refers_to(node.func, names)

    def refers_to(self, expr: cst.CSTNode, names: FrozenSet[str]) -> bool:
        return self.ctx.refers_to(expr, names)

    # -- grad mode ----------------------------------------------------------

    def guard(self, expr: cst.BaseExpression) -> Optional[Guard]:
        called = isinstance(expr, cst.Call)
        func = expr.func if isinstance(expr, cst.Call) else expr
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        if not self.ctx.refers_to(func, GRAD_MODE_GUARDS):
            return None
        names = self.ctx.qualnames(func)
        if names & NO_GRAD:
            return Guard("no_grad", called, True)
        if names & ENABLE_GRAD:
            return Guard("enable_grad", called, False)
        if names & INFERENCE_MODE:
            mode = call_arg(expr, 0, "mode") if isinstance(expr, cst.Call) else None
            return Guard("inference_mode", called, True if mode is None else bool_value(mode.value))
        if names & SET_GRAD_ENABLED:
            mode = call_arg(expr, 0, "mode") if isinstance(expr, cst.Call) else None
            value = bool_value(mode.value) if mode is not None else None
            return Guard("set_grad_enabled", called, None if value is None else not value)
        return None

    def with_guard(self, node: cst.With) -> Optional[Guard]:
        """The innermost grad-mode guard a ``with`` statement enters, if any."""
        found = None
        for item in node.items:
            g = self.guard(item.item)
            if g is not None and (g.called or g.kind == "set_grad_enabled"):
                found = g
        return found

    def decorator_guard(self, func: cst.FunctionDef) -> Optional[Guard]:
        found = None
        for dec in func.decorators:
            g = self.guard(dec.decorator)
            # Bare @torch.no_grad / @torch.inference_mode / @torch.enable_grad work;
            # bare @torch.set_grad_enabled fails at definition time.
            if g is not None and (g.called or g.kind != "set_grad_enabled"):
                found = g
        return found

    def global_switch(self, stmt: cst.CSTNode) -> Optional[Guard]:
        """``torch.set_grad_enabled(x)`` called as a statement (or assigned): it acts at once."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if isinstance(value, cst.Call):
            g = self.guard(value)
            if g is not None and g.kind == "set_grad_enabled":
                return g
        return None

    def grad_disabled(self, node: cst.CSTNode) -> Optional[bool]:
        """Whether gradients are off when ``node`` runs: True, False, or None (unknown).

        Looks outward from ``node`` through ``with`` guards and preceding
        ``set_grad_enabled`` statements up to the enclosing function, whose
        grad-mode decorator decides; an undecorated function body (or the module)
        runs with gradients on unless its caller says otherwise, which is the
        callers' business (False is returned).
        """
        cur = node
        parent = self.ctx.parent(cur)
        while parent is not None:
            if isinstance(parent, cst.With) and cur is parent.body:
                g = self.with_guard(parent)
                if g is not None:
                    return g.disables
            elif isinstance(parent, (cst.IndentedBlock, cst.Module)):
                body = parent.body
                for i in range(len(body) - 1, -1, -1):
                    if body[i] is cur:
                        for prev in reversed(body[:i]):
                            g = self.global_switch(prev)
                            if g is not None:
                                return g.disables
                        break
            elif isinstance(parent, cst.FunctionDef) and cur is parent.body:
                g = self.decorator_guard(parent)
                return g.disables if g is not None else False
            elif isinstance(parent, cst.Lambda):
                return False
            cur, parent = parent, self.ctx.parent(parent)
        return False

    def needs_gradients(self, node: cst.CSTNode) -> bool:
        """Whether code under ``node`` (not nested functions) computes or requests gradients."""
        for sub in walk(node):
            if isinstance(sub, cst.Call):
                func = sub.func
                if isinstance(func, cst.Attribute):
                    attr = func.attr.value
                    if attr == "backward":
                        return True
                    if attr == "step" and (
                        is_optimizer_name(func.value) or any(is_optimizer_name(a.value) for a in sub.args)
                    ):
                        return True
                    if attr == "requires_grad_":
                        flag = call_arg(sub, 0, "requires_grad")
                        if flag is None or bool_value(flag.value) is not False:
                            return True
                names = self.ctx.qualnames(func) if isinstance(func, (cst.Name, cst.Attribute)) else frozenset()
                if names & AUTOGRAD_GRAD or any(n.startswith("torch.autograd.functional.") for n in names):
                    return True
                flag = call_arg(sub, None, "requires_grad")
                if flag is not None and bool_value(flag.value) is not False:
                    return True
            elif isinstance(sub, (cst.Assign, cst.AnnAssign)) and sub.value is not None:
                targets = [t.target for t in sub.targets] if isinstance(sub, cst.Assign) else [sub.target]
                for t in targets:
                    if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                        if bool_value(sub.value) is not False:
                            return True
        return False

    # -- scopes and bindings ------------------------------------------------

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        parent = self.ctx.parent(node)
        while parent is not None:
            if isinstance(parent, cst.FunctionDef):
                return parent
            if isinstance(parent, (cst.Lambda, cst.ClassDef)):
                return None
            parent = self.ctx.parent(parent)
        return None

    def enclosing_scope(self, node: cst.CSTNode) -> Scope:
        parent = self.ctx.parent(node)
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                return parent
            parent = self.ctx.parent(parent)
        return self.ctx.module

    def bindings(self, scope: Scope) -> Dict[str, List[Binding]]:
        """How each name is bound in ``scope`` (not counting nested functions or classes)."""
        key = id(scope)
        found = self._bindings.get(key)
        if found is None:
            found = self._bindings[key] = _collect_bindings(scope)
        return found

    def carries_no_graph(
        self, expr: cst.BaseExpression, scope: Scope, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` evidently holds no autograd history: a tensor factory call,
        ``torch.from_numpy``, a DataLoader batch, ``.detach()``, a legacy ``Variable(...)``
        (which detaches), or shape/dtype/device conversions of those, followed through
        simple assignments (``x = x.cuda()`` included)."""
        if _depth > 8:
            return False
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, (cst.Name, cst.Attribute)) and self.ctx.refers_to(func, _NO_GRAPH_CALLS):
                return True
            if isinstance(func, cst.Attribute):
                if func.attr.value == "detach":
                    return True
                if func.attr.value in CONVERSIONS:
                    return self.carries_no_graph(func.value, scope, _depth + 1, _visiting)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_batch(expr.value, scope, _depth + 1, _visiting)
        if isinstance(expr, cst.Name):
            if expr.value in _visiting:
                return True  # x = x.cuda(): the other bindings of x decide
            binds = self.bindings(scope).get(expr.value)
            if not binds:
                return False
            visiting = _visiting | {expr.value}
            return all(self._binding_free(b, scope, _depth + 1, visiting) for b in binds)
        return False

    def is_batch(
        self, expr: cst.BaseExpression, scope: Scope, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` is (part of) a batch drawn from a DataLoader loop."""
        if _depth > 8:
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_batch(expr.value, scope, _depth + 1, _visiting)
        if isinstance(expr, cst.Name):
            if expr.value in _visiting:
                return True
            binds = self.bindings(scope).get(expr.value)
            visiting = _visiting | {expr.value}
            return bool(binds) and all(self._binding_free(b, scope, _depth + 1, visiting) for b in binds)
        return False

    def _binding_free(self, b: Binding, scope: Scope, depth: int, visiting: FrozenSet[str]) -> bool:
        if b.value is None:
            return False
        if b.kind == "for":
            return self.is_loader(b.value, scope)
        if b.kind == "unpack":
            return self.is_batch(b.value, scope, depth, visiting) or self.carries_no_graph(b.value, scope, depth, visiting)
        if b.kind == "assign":
            return self.carries_no_graph(b.value, scope, depth, visiting)
        return False

    def is_loader(self, expr: cst.BaseExpression, scope: Scope, _depth: int = 0) -> bool:
        """A loop iterable that yields batches: ``loader``, ``enumerate(train_loader)``,
        ``tqdm(dataloaders[phase])``, ``DataLoader(...)``, a name bound to ``DataLoader(...)``."""
        if _depth > 4:
            return False
        if isinstance(expr, cst.Call):
            if self.ctx.refers_to(expr.func, DATALOADER):
                return True
            fname = last_name(expr.func)
            if fname in ("enumerate", "tqdm", "iter", "trange") and expr.args:
                return self.is_loader(expr.args[0].value, scope, _depth + 1)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_loader(expr.value, scope, _depth + 1)
        name = last_name(expr)
        if name and _LOADER_NAME.search(name):
            return True
        if isinstance(expr, cst.Name):
            binds = self.bindings(scope).get(expr.value, [])
            return bool(binds) and all(
                b.kind == "assign" and b.value is not None and self.is_loader(b.value, scope, _depth + 1)
                for b in binds
            )
        return False

    # -- code generation ----------------------------------------------------

    def torch_ref(self) -> Tuple[str, Tuple[ImportSpec, ...]]:
        """How generated code should spell ``torch``, and the import it needs for that."""
        if self._torch_ref is None:
            ref: Optional[str] = None
            for stmt in self.ctx.module.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if not isinstance(small, cst.Import):
                        continue
                    for alias in small.names:
                        if isinstance(alias.name, cst.Name) and alias.name.value == "torch":
                            if alias.asname is None:
                                ref = "torch"
                            elif ref is None and isinstance(alias.asname.name, cst.Name):
                                ref = alias.asname.name.value
                        elif alias.asname is None and self.ctx.code_for(alias.name).startswith("torch."):
                            # ``import torch.nn`` binds ``torch`` too
                            ref = ref or "torch"
            self._torch_ref = (ref, False) if ref else ("torch", True)
        name, needed = self._torch_ref
        return name, ((ImportSpec("torch"),) if needed else ())

    def imports_of(self, names: FrozenSet[str]) -> List[ImportSpec]:
        """The module-level ``from X import Y [as Z]`` imports that bind one of ``names``."""
        found: List[ImportSpec] = []
        for stmt in self.ctx.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not isinstance(small, cst.ImportFrom) or small.module is None or small.relative:
                    continue
                if isinstance(small.names, cst.ImportStar):
                    continue
                mod = self.ctx.code_for(small.module)
                for alias in small.names:
                    obj = self.ctx.code_for(alias.name)
                    if f"{mod}.{obj}" in names:
                        asname = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None
                        found.append(ImportSpec(mod, obj, asname))
        return found


def walk(node: cst.CSTNode, into_functions: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (itself included) in source order. Nested functions,
    lambdas and classes are yielded but not entered, unless ``into_functions``."""
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        if cur is not node and not into_functions and isinstance(cur, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(reversed(children(cur)))


def _target_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _target_names(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _collect_bindings(scope: Scope) -> Dict[str, List[Binding]]:
    out: Dict[str, List[Binding]] = {}

    def add(name: str, binding: Binding) -> None:
        out.setdefault(name, []).append(binding)

    if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        params = scope.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            add(p.name.value, Binding("param", node=p))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                add(star.name.value, Binding("param", node=star))
        body: cst.CSTNode = scope.body
    else:
        body = scope
    for node in walk(body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                tgt = t.target
                if isinstance(tgt, cst.Name):
                    add(tgt.value, Binding("assign", node.value, node))
                elif isinstance(tgt, (cst.Tuple, cst.List)):
                    values = node.value.elements if isinstance(node.value, (cst.Tuple, cst.List)) else None
                    if values is not None and len(values) == len(tgt.elements) and not any(
                        isinstance(e, cst.StarredElement) for e in (*values, *tgt.elements)
                    ):
                        for el, val in zip(tgt.elements, values):
                            if isinstance(el.value, cst.Name):
                                add(el.value.value, Binding("assign", val.value, node))
                            else:
                                for n in _target_names(el.value):
                                    add(n.value, Binding("other", node=node))
                    else:
                        for n in _target_names(tgt):
                            add(n.value, Binding("unpack", node.value, node))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            add(node.target.value, Binding("assign", node.value, node) if node.value else Binding("other", node=node))
        elif isinstance(node, (cst.For, cst.CompFor)):
            for n in _target_names(node.target):
                add(n.value, Binding("for", node.iter, node))
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            add(node.target.value, Binding("other", node=node))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            for n in _target_names(node.asname.name):
                add(n.value, Binding("other", node=node))
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            add(node.target.value, Binding("assign", node.value, node))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not scope:
            add(node.name.value, Binding("other", node=node))
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.asname is not None:
                    for n in _target_names(alias.asname.name):
                        add(n.value, Binding("other", node=node))
                else:
                    top = alias.name
                    while isinstance(top, cst.Attribute):
                        top = top.value
                    if isinstance(top, cst.Name):
                        add(top.value, Binding("other", node=node))
    return out
