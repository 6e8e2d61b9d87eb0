"""A model built where it is evaluated and given no weights: ``loader =
CacheLoader(conf).eval()`` in the function that then runs it, every binding of
the name a constructor of a module class (of the file, of the project index, or
``torch.nn``), and the name used for nothing but its forwards and the module's
mode and device calls. Such a model holds what its constructor made: random
weights (nobody evaluates those but a test), none at all (a cache loader, a
metric), or frozen ones (a feature extractor built with ``requires_grad=False``
by default). That its forward records a graph worth reporting is not shown;
GL101 leaves it to the preview tier. Loading weights into it
(``load_state_dict``), handing it to any call (a loader, a trainer), or any
other method call keeps it out of this set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.ast_imports import relative_files
from gradlint.semantic.torch_api import is_nn_module_class
from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

# What a use of the model may be, besides its forward, for it to stay as built.
_KEEPING = frozenset("to cuda cpu eval train half float double bfloat16 requires_grad_ forward".split())
# Constructor keywords that ask for trained weights (``Net(pretrained=True)``).
_LOADING_WORDS = ("pretrain", "checkpoint", "ckpt", "weight", "load", "path", "url", "state")


def built_unloaded(sem: "SemanticModel", scope: Union[cst.Module, cst.FunctionDef, cst.Lambda], name: str) -> bool:
    """Whether the local ``name`` of ``scope`` is such a model (see the module docstring)."""
    if not name.isidentifier() or isinstance(scope, cst.Lambda):
        return False
    bindings = sem.scopes.bindings(scope).get(name, [])
    if not bindings or any(b.form != "assign" or b.kind != "assign" or b.value is None for b in bindings):
        return False
    if not all(b.value is not None and _constructs_module(sem, b.value) for b in bindings):
        return False
    body = scope if isinstance(scope, cst.Module) else scope.body
    for node in walk(body):
        if type(node) is not cst.Name or node.value != name or not sem.scopes.is_read(node):
            continue
        parent = sem.tree.parent(node)
        if type(parent) is cst.Call and parent.func is node:
            continue  # ``model(x)``
        if type(parent) is cst.Attribute and parent.value is node and parent.attr.value in _KEEPING:
            call = sem.tree.parent(parent)
            if type(call) is cst.Call and _result_kept(sem, call, name):
                continue  # ``model.eval()``, ``model = model.to(device)``, ``model.forward(x)``
        return False
    return True


def _result_kept(sem: "SemanticModel", call: cst.Call, name: str) -> bool:
    """Whether what ``name.<method>(...)`` returns goes nowhere but back to ``name``:
    a statement of its own, ``name = name.to(d)``, or the forward's own output."""
    if call.func.attr.value == "forward":  # type: ignore[attr-defined]
        return True
    holder = sem.tree.parent(call)
    if type(holder) is cst.Expr:
        return True
    if type(holder) is cst.Assign:
        return all(type(t.target) is cst.Name and t.target.value == name for t in holder.targets)
    return type(holder) is cst.Call and holder.func is call  # ``model.to(d)(x)``


def _constructs_module(sem: "SemanticModel", value: cst.BaseExpression) -> bool:
    while type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in _KEEPING:
        value = value.func.value  # ``Net(cfg).to(device).eval()``
    if type(value) is not cst.Call or not isinstance(value.func, (cst.Name, cst.Attribute)):
        return False
    if any(a.keyword is not None and any(w in a.keyword.value.lower() for w in _LOADING_WORDS) for a in value.args):
        return False
    if any(a.star for a in value.args):
        return False  # ``Net(**cfg)`` may ask for weights
    func = value.func
    if type(func) is cst.Name and not sem.names.is_imported(func):
        module = sem.tree.module
        return any(type(s) is cst.ClassDef and s.name.value == func.value and _module_class(sem, s) for s in module.body)
    qualnames = sem.names.qualnames(func)
    if len(qualnames) != 1:
        return False
    qualname = next(iter(qualnames))
    if qualname.startswith("torch.nn."):
        return is_nn_module_class(qualname)
    index = sem.project
    if index is None or not sem.names.is_imported(func):
        return False
    if not qualname.startswith("."):
        return index.derives_from_module(qualname, sem.path) is True
    package, _, cls = qualname.rpartition(".")
    files = relative_files(index.summaries, package, sem.path)
    if len(files) != 1 or cls not in index.summaries[files[0]].get("classes", {}):
        return False
    return _bases_reach_module(index, files[0], cls, sem.path)


def _bases_reach_module(index: Any, path: str, cls: str, origin: str, depth: int = 0) -> bool:
    """A class of the file ``path`` whose bases, qualified in that file (``.Base`` for
    one of the file itself), reach ``nn.Module``."""
    for base in index.summaries[path]["classes"][cls]:
        if is_nn_module_class(base):
            return True
        if base.startswith(".") and depth < bounds.PROJECT_BASE_LEVELS:
            module, _, name = base.rpartition(".")
            files = [path] if not module else relative_files(index.summaries, module, path)
            if len(files) == 1 and name in index.summaries[files[0]].get("classes", {}):
                if _bases_reach_module(index, files[0], name, origin, depth + 1):
                    return True
        elif index.derives_from_module(base, origin) is True:
            return True
    return False


def _module_class(sem: "SemanticModel", cls: cst.ClassDef) -> bool:
    return any(
        isinstance(b.value, (cst.Name, cst.Attribute)) and any(is_nn_module_class(q) for q in sem.names.qualnames(b.value))
        for b in cls.bases
    )
