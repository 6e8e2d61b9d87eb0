"""Whether a module instance is built frozen by its own class (``semantic.ast_frozen``),
or without any parameter (``semantic.ast_param_free``):
``inception = InceptionV3([block]).to(dev)`` or ``self.fid = InceptionV3(dims)``,
where the class, of this file or of the project index, freezes every parameter it
makes unless the call asks otherwise. A forward of such an instance records a graph
only through an input that carries one.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, List, Optional

import libcst as cst

from gradlint.semantic import ast_frozen, ast_param_free, bounds
from gradlint.semantic.torch_api import MODULE_SELF_METHODS
from gradlint.semantic.tree import self_attribute_values, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


def built_frozen(model: "SemanticModel", expr: cst.BaseExpression) -> bool:
    """Whether every value ``expr`` (a name, or ``self.<attr>``) is bound to is such a
    constructor call, and nothing in the file turns the instance's gradients back on."""
    values = _bound_values(model, expr)
    if not values or not all(_frozen_call(model, v) for v in values):
        return False
    return not _unfrozen_in_file(model, model.tree.code_for(expr))


def _bound_values(model: "SemanticModel", expr: cst.BaseExpression, depth: int = 0) -> List[cst.BaseExpression]:
    if isinstance(expr, cst.Name):
        value = model.values.value_of(expr)
        if value is not None:
            return [value]
        return _passed_values(model, expr, depth) if depth < bounds.CALL_LEVELS else []
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        owner = model.tree.enclosing_class(expr)
        return self_attribute_values(owner, expr.attr.value) if owner is not None else []
    return []


def _passed_values(model: "SemanticModel", name: cst.Name, depth: int) -> List[cst.BaseExpression]:
    """For a parameter never rebound in its function, what every caller passes for it:
    pytorch-fid's ``get_activations(files, model)``, called only through functions of
    the file that hand on the ``InceptionV3([block])`` one of them built. Empty when a
    caller is unknown (another file's, a callback) or passes none."""
    func = model.tree.enclosing_function(name)
    if func is None:
        return []
    binds = model.scopes.bindings(func).get(name.value, [])
    if len(binds) != 1 or not isinstance(binds[0].node, cst.Param):
        return []
    sites = model.calls.call_sites(func)
    passed = model.calls.arguments_for(binds[0].node)
    if not sites or passed is None or len(passed) != len(sites) or model.gradmode.project_call_counts(func)[0]:
        return []
    values: List[cst.BaseExpression] = []
    for _, argument in passed:
        found = _bound_values(model, argument, depth + 1) if isinstance(argument, cst.Name) else [argument]
        if not found:
            return []
        values += found
    return values


def _frozen_call(model: "SemanticModel", value: cst.BaseExpression) -> bool:
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_SELF_METHODS:
        if value.func.attr.value == "requires_grad_":
            return False  # a chain that sets the flag itself: ``Modules.frozen_models`` judges it
        value = value.func.value
    if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
        return False
    fact = _fact(model, value.func)
    if fact is None:
        return _param_free(model, value.func)
    positional = sum(1 for a in value.args if a.keyword is None and not a.star)
    keywords = [a.keyword.value for a in value.args if a.keyword is not None]
    return ast_frozen.frozen_by(fact, positional, keywords, any(a.star for a in value.args))


def _fact(model: "SemanticModel", ref: cst.BaseExpression) -> Optional[List[object]]:
    if isinstance(ref, cst.Name):
        defs = [s for s in model.module.body if isinstance(s, cst.ClassDef) and s.name.value == ref.value]
        binds = model.scopes.bindings(model.module).get(ref.value, [])
        if defs:
            if len(defs) != 1 or not all(b.node is defs[0] for b in binds):
                return None
            parsed = ast.parse(model.tree.code_for(defs[0]).strip()).body[0]
            assert isinstance(parsed, ast.ClassDef)
            # The file's own decorators are read by ``ModuleEvidence.records_graph``.
            return ast_frozen.class_fact(parsed, {})
    index = model.project
    if index is None or not model.names.is_imported(ref):
        return None
    found = {repr(f): f for f in (ast_frozen.index_fact(index, q, model.path) for q in model.names.qualnames(ref))}
    return next(iter(found.values())) if len(found) == 1 else None


def _unfrozen_in_file(model: "SemanticModel", text: str) -> bool:
    """``model.requires_grad_()`` or a loop over ``model.parameters()`` anywhere in the
    file: the caller may train the frozen instance after all."""
    if "requires_grad" not in model.source:
        return False
    for node in walk(model.module, into_functions=True):
        if type(node) is cst.Call and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ("requires_grad_", "parameters", "named_parameters"):
                if model.tree.code_for(node.func.value) == text:
                    return True
    return False


def _param_free(model: "SemanticModel", ref: cst.BaseExpression) -> bool:
    """Whether ``ref``, imported, names a class of the project index whose instances hold
    no parameter at all (``semantic.ast_param_free``)."""
    index = model.project
    if index is None or not isinstance(ref, (cst.Name, cst.Attribute)) or not model.names.is_imported(ref):
        return False
    names = model.names.qualnames(ref)
    return bool(names) and all(ast_param_free.param_free(index, q, model.path) for q in names)
