"""Forwarding wrappers: objects built around a module whose call runs that
module's forward, in the module's own mode.

``DDP(m)``, ``nn.DataParallel(m)``, ``FSDP(m)`` and ``torch.compile(m)`` are
torch's. A class of the project is one too when what it does can be read off
its body (``Detector(model)`` of an out-of-distribution library, a
``Predictor(net)`` of an application): its ``__init__`` keeps a parameter as
an attribute and never rebinds it, and the method that calling an instance
runs (``forward`` of an ``nn.Module``, ``__call__`` of any class) runs that
attribute, with nothing in it that changes grad mode or the module's mode.
``m.eval()`` before or after ``w = Wrapper(m)`` then makes ``w(x)`` an
eval-mode forward of ``m``, run in the grad mode of the caller.

The other way round, an object whose ``forward`` (or ``__call__``) runs one of
its attributes runs that attribute's forward when called: after
``model.net.eval()``, ``model(x)`` runs ``model.net`` in eval mode when the
class of ``model`` (a continual-learning wrapper whose ``forward`` returns
``self.net(x)``) is read so.

The reading of a class is ``semantic.ast_forwarders``'s, the project index's
and the semantic model's alike.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

from gradlint.semantic.ast_forwarders import forwarded_attributes, forwarded_parameter

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

TORCH_WRAPPERS = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
        "torch.compile",
    }
)
def wrapped_argument(model: "SemanticModel", call: cst.Call) -> Optional[cst.BaseExpression]:
    """The module that ``call`` builds a forwarding wrapper around: the argument
    given for the wrapped parameter of torch's wrappers (first, or ``module=``)
    or of a forwarding class of the file or of the project index. None when
    ``call`` builds no such wrapper, or the argument cannot be told."""
    func = call.func
    if not isinstance(func, (cst.Name, cst.Attribute)):
        return None
    if model.names.refers_to(func, TORCH_WRAPPERS):
        found: Optional[Tuple[int, Sequence[str]]] = (0, ("module", "model"))
    else:
        found = _class_forwarder(model, func)
    if found is None or any(a.star for a in call.args):
        return None
    position, keywords = found
    positional = [a.value for a in call.args if a.keyword is None]
    given = positional[position : position + 1]
    given += [a.value for a in call.args if a.keyword is not None and a.keyword.value in keywords]
    return given[0] if len(given) == 1 else None


def owner_forward(model: "SemanticModel", target: cst.BaseExpression, models: FrozenSet[str]) -> Optional[str]:
    """The model of ``models`` that a call of ``target`` runs as an attribute of
    it: ``model.net`` for ``model(x)`` when every class ``model`` may be an
    instance of (``model: ContinualModel``, ``m = Wrapper(...)``) runs ``self.net``
    in the method a call runs (``forwarded_attributes``)."""
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return None
    text = model.tree.code_for(target)
    wanted = {m[len(text) + 1 :]: m for m in models if m.startswith(text + ".")}
    wanted = {a: m for a, m in wanted.items() if a.isidentifier()}
    if not wanted:
        return None
    classes = model.modules.declared_classes(target)
    if not classes:
        return None
    runs: Optional[Set[str]] = None
    for ref in classes:
        found = _class_attributes(model, ref)
        if found is None:
            return None
        runs = set(found) if runs is None else runs & set(found)
    hit = sorted(a for a in wanted if a in (runs or ()))
    return wanted[hit[0]] if hit else None


def _class_attributes(model: "SemanticModel", ref: cst.BaseExpression) -> Optional[Sequence[str]]:
    entry = _class_entry(model, ref, forwarded_attributes, "runs_attributes")
    return None if entry is None else [str(a) for a in entry[0]]  # type: ignore[attr-defined]


def _class_forwarder(model: "SemanticModel", func: cst.BaseExpression) -> Optional[Tuple[int, Sequence[str]]]:
    entry = _class_entry(model, func, forwarded_parameter, "wraps")
    return None if entry is None else (int(str(entry[0])), (str(entry[1]),))


def _class_entry(
    model: "SemanticModel", ref: cst.BaseExpression, read: Callable[[ast.ClassDef], Optional[List[object]]], key: str
) -> Optional[List[object]]:
    """What ``read`` says of the class ``ref`` names: a class of the file, read here,
    or one the project index summarised under ``key``. An entry read off
    ``forward`` (its last item) holds only for an ``nn.Module``."""
    cls = _file_class(model, ref)
    if cls is not None:
        # Rendered and parsed once per class of the file: asked for every call of it.
        cache: Dict[int, ast.stmt] = model.__dict__.setdefault("_forwarder_classes", {})
        parsed = cache.get(id(cls))
        if parsed is None:
            parsed = cache[id(cls)] = ast.parse(model.tree.code_for(cls).strip()).body[0]
        entry = read(parsed) if isinstance(parsed, ast.ClassDef) else None
        if entry is None or (entry[-1] == "forward" and model.modules.module_class(ref) is None):
            return None
        return entry
    index = model.project
    if index is None or not isinstance(ref, (cst.Name, cst.Attribute)) or not model.names.is_imported(ref):
        return None
    answers = {_frozen(index.forwarding(q, model.path, key)) for q in model.names.qualnames(ref)}
    answer = answers.pop() if len(answers) == 1 else None
    return None if answer is None else list(answer)


def _file_class(model: "SemanticModel", ref: cst.BaseExpression) -> Optional[cst.ClassDef]:
    """The one top-level class of the file that ``ref`` names where it is read."""
    if not isinstance(ref, cst.Name):
        return None
    binds = model.scopes.bindings(model.module).get(ref.value, [])
    if len(binds) != 1 or not isinstance(binds[0].node, cst.ClassDef):
        return None
    if {id(b) for b in model.scopes.visible(ref.value, ref).bindings} != {id(binds[0])}:
        return None  # a local of the same name
    return binds[0].node


def _frozen(entry: Optional[List[object]]) -> Optional[Tuple[object, ...]]:
    """A summary entry made hashable, to compare the answers for a name's qualnames."""
    return None if entry is None else tuple(tuple(x) if isinstance(x, list) else x for x in entry)


