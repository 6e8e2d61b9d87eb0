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

The reading is one function of Python's ``ast``, so that the project index
(``semantic.project``) records it for classes of other files and the semantic
model asks the same of a class of its own file.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

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
# Names whose mention in the calling method may change grad mode or the module's
# mode, or compute gradients: the wrapper's call is then not the module's forward
# as the caller runs it.
_MODE_WORDS = frozenset(
    {"no_grad", "inference_mode", "set_grad_enabled", "enable_grad", "backward", "grad", "train", "eval", "requires_grad_"}
)


def forwarded_parameter(cls: ast.ClassDef) -> Optional[List[object]]:
    """[position, name, method] when ``cls`` forwards to the module it is given:
    ``__init__``'s parameter ``name`` (``position`` counted after ``self``) is kept
    as ``self.<attr>`` by a statement of ``__init__``'s own body, nothing else in
    the class assigns that attribute or the parameter, and ``method``
    (``forward``, else ``__call__``), undecorated, calls ``self.<attr>(...)`` or
    ``self.<attr>.forward(...)`` and mentions nothing that changes grad mode or
    a module's mode. None otherwise."""
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
    init = methods.get("__init__")
    if init is None:
        return None
    params = [a.arg for a in init.args.posonlyargs + init.args.args]
    if len(params) < 2:
        return None
    stores = {}  # attr -> (parameter, the statement that keeps it)
    for stmt in init.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id in params[1:]
        ):
            attr = _attribute_of(stmt.targets[0], params[0])
            if attr is not None:
                stores[attr] = (stmt.value.id, stmt)
    rebound = set()
    for method in methods.values():
        me = _instance_name(method)
        for node in ast.walk(method):
            for target in _assigned(node):
                attr = _attribute_of(target, me)
                if attr in stores and node is not stores[attr][1]:
                    rebound.add(attr)  # kept, then replaced: may be another object
                if method is init and isinstance(target, ast.Name):
                    rebound |= {a for a, (p, _) in stores.items() if p == target.id}
    kept = {a: p for a, (p, _) in stores.items() if a not in rebound}
    called = _called_method(methods)
    if called is None:
        return None
    name, attrs = called
    runs = {a for a in kept if a in attrs}
    if len(runs) != 1:
        return None
    param = kept[runs.pop()]
    return [params.index(param) - 1, param, name]


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


def forwarded_attributes(cls: ast.ClassDef) -> Optional[List[object]]:
    """[attributes, method]: the attributes that ``method`` (``forward``, else
    ``__call__``), undecorated and mentioning nothing that changes grad mode or a
    module's mode, runs (``self.net(x)``, ``self.net.forward(x)``). None when it
    runs none or is not read so."""
    called = _called_method({s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)})
    if called is None or not called[1]:
        return None
    return [sorted(set(called[1])), called[0]]


def _called_method(methods: Dict[str, ast.FunctionDef]) -> Optional[Tuple[str, List[str]]]:
    """(name, the attributes it runs) of the method a call of an instance runs:
    ``forward`` (for an ``nn.Module``), else ``__call__``; None when it is
    decorated or mentions what may change grad mode or a module's mode."""
    for name in ("forward", "__call__"):
        method = methods.get(name)
        if method is None:
            continue
        me = _instance_name(method)
        if method.decorator_list or me is None or _mentions_mode(method):
            return None
        return name, _called_attributes(method, me)
    return None


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
    cls = _file_class(model, ref)
    if cls is not None:
        parsed = ast.parse(model.tree.code_for(cls).strip()).body[0]
        info = forwarded_attributes(parsed) if isinstance(parsed, ast.ClassDef) else None
        if info is None or (info[1] == "forward" and model.modules.module_class(ref) is None):
            return None
        return info[0]  # type: ignore[return-value]
    index = model.project
    if index is None or not isinstance(ref, (cst.Name, cst.Attribute)) or not model.names.is_imported(ref):
        return None
    answers = {_frozen(index.forwarding(q, model.path, "runs_attributes")) for q in model.names.qualnames(ref)}
    answer = answers.pop() if len(answers) == 1 else None
    return None if answer is None else [str(a) for a in answer[0]]  # type: ignore[attr-defined]


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


def _class_forwarder(model: "SemanticModel", func: cst.BaseExpression) -> Optional[Tuple[int, Sequence[str]]]:
    cls = _file_class(model, func)
    if cls is not None:
        parsed = ast.parse(model.tree.code_for(cls).strip()).body[0]
        info = forwarded_parameter(parsed) if isinstance(parsed, ast.ClassDef) else None
        if info is None or (info[2] == "forward" and model.modules.module_class(func) is None):
            return None
        return int(info[0]), (str(info[1]),)  # type: ignore[call-overload]
    index = model.project
    if index is None or not model.names.is_imported(func):
        return None
    answers = {_frozen(index.forwarding(q, model.path, "wraps")) for q in model.names.qualnames(func)}
    answer = answers.pop() if len(answers) == 1 else None
    return None if answer is None else (int(str(answer[0])), (str(answer[1]),))


def _frozen(entry: Optional[List[object]]) -> Optional[Tuple[object, ...]]:
    """A summary entry made hashable, to compare the answers for a name's qualnames."""
    return None if entry is None else tuple(tuple(x) if isinstance(x, list) else x for x in entry)


def _instance_name(method: ast.FunctionDef) -> Optional[str]:
    args = method.args.posonlyargs + method.args.args
    return args[0].arg if args else None


def _attribute_of(target: ast.AST, me: Optional[str]) -> Optional[str]:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
        return target.attr
    return None


def _assigned(node: ast.AST) -> List[ast.AST]:
    if isinstance(node, ast.Assign):
        out: List[ast.AST] = []
        for t in node.targets:
            out += list(ast.walk(t)) if isinstance(t, (ast.Tuple, ast.List)) else [t]
        return out
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    if isinstance(node, (ast.For, ast.With, ast.NamedExpr)):
        targets = [node.target] if not isinstance(node, ast.With) else [i.optional_vars for i in node.items if i.optional_vars]
        return [n for t in targets for n in ast.walk(t)]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    return []


def _mentions_mode(method: ast.FunctionDef) -> bool:
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id in _MODE_WORDS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _MODE_WORDS:
            return True
    return False


def _called_attributes(method: ast.FunctionDef, me: str) -> List[str]:
    """``a`` for each ``self.a(...)`` or ``self.a.forward(...)`` in ``method``."""
    out = []
    for node in ast.walk(method):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "forward":
            func = func.value
        attr = _attribute_of(func, me)
        if attr is not None:
            out.append(attr)
    return out
