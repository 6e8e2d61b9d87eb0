"""Facts read off the syntax alone: no names resolved, no flow followed.

Helpers the concept modules and the rules share: call arguments, literal
booleans, receivers of in-place edits, name-based hints (a callee named like a
model), chains of module methods that return the module itself.
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Sequence, Set, Tuple, cast

import libcst as cst

from gradlint.semantic.torch_api import (
    FACTORY_NAME,
    FORWARD_NAME,
    INFERENCE_WORD,
    MODEL_NAME,
    MODULE_CHAIN,
    NOT_INPLACE,
    NOT_TENSOR_DATA,
    OPTIMIZER_NAME,
)
from gradlint.semantic.tree import assignment, walk


def looks_forward(name: Optional[str]) -> bool:
    """A callee named like a model or loss (``model``, ``netD``, ``criterion``), not a
    class (``Net(...)`` builds a module, ``LSTMLayer.from_float`` converts one) nor a
    factory (``get_model``, ``build_criterion``)."""
    if not name or not FORWARD_NAME.search(name):
        return False
    return not name.lstrip("_")[:1].isupper() and not FACTORY_NAME.match(name.lstrip("_"))


def is_inplace_method(name: str) -> bool:
    """``add_``, ``zero_``, ``copy_``...: tensor methods that overwrite their receiver's elements."""
    return name.endswith("_") and not name.startswith("_") and name not in NOT_INPLACE


def is_basic_index(node: cst.Subscript) -> bool:
    """Indexing with integer literals, slices, ``...`` and ``None`` only: the result is a view."""
    for el in node.slice:
        sl = el.slice
        if isinstance(sl, cst.Slice):
            continue
        value = cast(cst.Index, sl).value
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Ellipsis)) or (isinstance(value, cst.Name) and value.value == "None"):
            continue
        return False
    return True


def root_name(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """``self.model.fc`` -> ``self``; ``x[0].grad`` -> ``x``; a call breaks the chain."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


def is_tensor_data_syntax(node: cst.CSTNode) -> bool:
    """``x.data`` whose receiver is not named like a dataset, request or config object."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "data"):
        return False
    name = last_name(node.value)  # None for ``next(model.parameters()).data``, ``(a + b).data``, ``xs[0].data``
    return name is None or not NOT_TENSOR_DATA.search(name)


def inplace_edit(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The tensor an in-place edit statement or call overwrites: ``y`` for
    ``y.add_(1)``, ``y += 1``, ``y[i] = v``, ``y[i] -= v``; else None."""
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and is_inplace_method(func.attr.value):
            return func.value
        return None
    if isinstance(node, cst.AugAssign):
        target = node.target
        return target.value if isinstance(target, cst.Subscript) else target
    if isinstance(node, cst.Assign):
        for t in node.targets:
            if isinstance(t.target, cst.Subscript):
                return t.target.value
    return None



def is_model_ref(expr: cst.CSTNode) -> bool:
    """A name, or an attribute/subscript chain on one (``self.models["g"]``), with no calls in it."""
    while type(expr) is cst.Attribute or type(expr) is cst.Subscript:
        expr = expr.value
    return type(expr) is cst.Name


def called_module(call: cst.Call) -> Optional[cst.BaseExpression]:
    """``m`` for ``m(...)`` and ``m.forward(...)`` when ``m`` is a name or an
    attribute/subscript chain on one (what a model's forward call looks like)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return func if is_model_ref(func) else None


def looks_like_model(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is named the way models are (``model``, ``self.encoder``, ``netG``)."""
    name = last_name(expr)
    return bool(name) and bool(MODEL_NAME.search(name))  # type: ignore[arg-type]


def is_inference_name(name: str) -> bool:
    """A function or loader name that says it is for inference (``evaluate``, ``val_loader``)."""
    return bool(INFERENCE_WORD.search(name.lower()))


def is_eval_call(call: cst.Call) -> bool:
    if not isinstance(call.func, cst.Attribute):
        return False
    attr = call.func.attr.value
    if attr == "eval":
        return not call.args
    if attr == "train":
        mode = call_arg(call, 0, "mode")
        return mode is not None and bool_value(mode.value) is False
    return False


def chain_base(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``model.to(dev).eval()`` -> ``model``: strip module methods that return the module."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in MODULE_CHAIN:
        expr = expr.func.value
    return expr


def eval_in_chain(expr: cst.BaseExpression) -> Tuple[Optional[cst.Call], cst.BaseExpression]:
    found = None
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in MODULE_CHAIN:
        if found is None and is_eval_call(expr):
            found = expr
        expr = expr.func.value
    return found, expr


def all_targets(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if type(target) is cst.Tuple or type(target) is cst.List:
        for el in target.elements:
            yield from all_targets(el.value)
    elif type(target) is cst.StarredElement:
        yield from all_targets(target.value)
    else:
        yield target


def self_attributes_assigned(node: cst.CSTNode) -> Set[str]:
    """The attributes ``x`` that ``node`` binds as ``self.x`` (``self.x = v``, ``self.x
    += v``, ``for self.x in ...``, ``with ... as self.x``), where ``v`` is not ``None``."""
    found: Set[str] = set()
    for sub in walk(node, into_functions=True):
        targets: Sequence[cst.BaseExpression] = ()
        if type(sub) is cst.Assign:
            if isinstance(sub.value, cst.Name) and sub.value.value == "None":
                continue
            targets = [t.target for t in sub.targets]
        elif type(sub) is cst.AugAssign or type(sub) is cst.AnnAssign:
            if sub.value is None or isinstance(sub.value, cst.Name) and sub.value.value == "None":
                continue
            targets = [sub.target]
        elif type(sub) is cst.For or type(sub) is cst.CompFor:
            targets = [sub.target]
        elif type(sub) is cst.WithItem and sub.asname is not None:
            targets = [sub.asname.name]
        for target in targets:
            for t in all_targets(target):
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    found.add(t.attr.value)
    return found


def false_arg(call: cst.Call, keyword: str) -> bool:
    arg = call_arg(call, 0, keyword)
    return arg is not None and bool_value(arg.value) is False


def frozen_in_chain(expr: cst.BaseExpression) -> bool:
    """``Net().eval().requires_grad_(False).to(dev)``: the last ``requires_grad_`` of a
    chain of module methods that return the module turns every parameter off."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in MODULE_CHAIN:
        if expr.func.attr.value == "requires_grad_":
            return false_arg(expr, "requires_grad")
        expr = expr.func.value
    return False


def parameters_owner(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``model.parameters()`` / ``model.named_parameters()`` -> ``model``."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value in ("parameters", "named_parameters"):
            base = chain_base(expr.func.value)
            return base if is_model_ref(base) else None
    return None


def parameter_target(target: cst.BaseExpression) -> Optional[str]:
    """The loop variable holding the parameter: ``p`` in ``for p in ...`` or ``for name, p in ...``."""
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
        last = target.elements[1].value
        return last.value if isinstance(last, cst.Name) else None
    return None


def freezes(body: cst.BaseSuite, name: str) -> bool:
    """Whether a loop body sets ``name.requires_grad = False`` / ``name.requires_grad_(False)``."""
    for node in walk(body):
        assigned = assignment(node)
        if assigned is not None and bool_value(assigned[1]) is False:
            for tgt in assigned[0]:
                if isinstance(tgt, cst.Attribute) and tgt.attr.value == "requires_grad":
                    if isinstance(tgt.value, cst.Name) and tgt.value.value == name:
                        return True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "requires_grad_" and false_arg(node, "requires_grad"):
                if isinstance(node.func.value, cst.Name) and node.func.value.value == name:
                    return True
    return False


def switch_call(stmt: cst.CSTNode) -> cst.BaseExpression:
    """The ``set_grad_enabled(...)`` call of a statement ``global_switch`` accepted."""
    assert isinstance(stmt, cst.SimpleStatementLine)
    small = stmt.body[0]
    assert isinstance(small, (cst.Expr, cst.Assign))
    return small.value


def last_name(expr: cst.BaseExpression) -> Optional[str]:
    """``self.model.encoder`` -> ``encoder``; ``model`` -> ``model``; else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def is_optimizer_name(expr: cst.BaseExpression) -> bool:
    name = last_name(expr)
    return bool(name) and bool(OPTIMIZER_NAME.search(name.lower()))  # type: ignore[union-attr]


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


def is_generator(func: cst.FunctionDef) -> bool:
    """Whether a call of ``func`` may suspend and resume later: a ``yield`` or an
    ``await`` in its body. Nested functions count too (conservatively): what runs
    between resumptions runs under the consumer's grad mode, not the caller's."""
    return any(type(n) in (cst.Yield, cst.Await) for n in walk(func.body))


def attribute_alias(stmt: cst.CSTNode, text: str, local: Dict[str, cst.Call]) -> Optional[cst.Call]:
    """The switch of the local that ``stmt`` (``self.net = net``, a statement of its
    own) assigns to the attribute ``text``, when that local is in eval mode."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign:
        return None
    assign = stmt.body[0]
    if len(assign.targets) != 1 or type(assign.value) is not cst.Name:
        return None
    target = assign.targets[0].target
    if type(target) is not cst.Attribute or type(target.value) is not cst.Name or f"{target.value.value}.{target.attr.value}" != text:
        return None
    return local.get(assign.value.value)


def dotted(expr: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes (``self.encoder.training``), else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None
