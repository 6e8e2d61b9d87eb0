"""Module classes without a parameter of their own: a ray sampler, a cache loader,
a fixed resampler. A forward of one records a graph only through an input that
carries one, so an eval-mode forward of it with gradients on costs nothing.

A class is recorded when nothing in its body makes or registers a parameter or
a module (``nn.Parameter``, ``register_parameter``, ``add_module``), every
``self.<attr> = ...`` in it assigns a plain value (a constant, a display of
constants, a scalar parameter of ``__init__``, a tensor a ``torch`` function
makes, a builtin's result) or an instance of a class, and its bases are
``nn.Module`` or classes. The classes it builds or derives from are its
dependencies, named as the file's imports qualify them: the class is free of
parameters when each is a parameter-free ``torch.nn`` class or, in the project
index, such a class itself (``param_free``). A project index fact
(``semantic.project``), read with Python's ``ast``.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence, Set, Tuple

from gradlint.semantic import ast_imports, bounds
from gradlint.semantic.module_files import absolute

KEY = "param_free_classes"
# ``torch.nn`` classes that hold no parameter (buffers at most: a loss's class weights).
_FREE_NN = frozenset(
    {
        "Module", "Identity", "Flatten", "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
        "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh", "Softmax", "Softmax2d",
        "LogSoftmax", "Softmin", "Softplus", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "Hardtanh", "Hardswish",
        "Hardsigmoid", "Threshold", "GLU", "LogSigmoid", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
        "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
        "AdaptiveMaxPool3d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
        "CosineSimilarity", "PairwiseDistance", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss",
        "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
    }
)
_BUILTINS = frozenset({"int", "float", "bool", "str", "tuple", "list", "dict", "set", "len", "min", "max", "abs", "round"})
_SCALARS = frozenset({"int", "float", "bool", "str"})
_ADDS = frozenset({"register_parameter", "add_module", "register_module"})


class _Index(Protocol):
    """What this module asks of ``project.Project`` (which imports this module)."""

    @property
    def summaries(self) -> Mapping[str, Mapping[str, Any]]: ...

    def module_files(self, module: str, origin: str) -> Sequence[str]: ...


def summary_entry(tree: ast.Module, imports: Mapping[str, str], module: str) -> Dict[str, Dict[str, List[str]]]:
    """``{"param_free_classes": {class: [dependency, ...]}}`` for the module-level
    classes of ``tree`` (the module ``module``) that qualify; nothing when none does."""
    found: Dict[str, List[str]] = {}
    if not module:
        return {}
    own = {n.name: f"{module}.{n.name}" for n in tree.body if isinstance(n, ast.ClassDef)}
    imports = {**imports, **own}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            deps = _dependencies(node, imports)
            if deps is not None:
                found[node.name] = deps
    return {KEY: found} if found else {}


def valid(summary: Mapping[str, Any]) -> bool:
    entry = summary.get(KEY, {})
    return isinstance(entry, dict) and all(isinstance(v, list) and all(isinstance(q, str) for q in v) for v in entry.values())


def param_free(index: _Index, qualname: str, origin: str, _depth: int = 0) -> bool:
    """Whether instances of the class ``qualname`` (of ``origin``'s project) surely hold
    no parameter: a parameter-free ``torch.nn`` class, or a class of the index whose
    every dependency is one, also through a package that re-exports it."""
    if qualname.startswith("torch.nn."):
        return qualname.rpartition(".")[2] in _FREE_NN and ".functional" not in qualname
    if _depth > bounds.PROJECT_BASE_LEVELS:
        return False
    module, _, name = absolute(qualname, origin).rpartition(".")
    found = []
    for path in index.module_files(module, origin):
        summary = index.summaries[path]
        if name in summary.get("classes", {}):
            deps = summary.get(KEY, {}).get(name)
            found.append(deps is not None and all(param_free(index, d, path, _depth + 1) for d in deps))
        elif name in summary.get("exports", {}):
            found.append(param_free(index, summary["exports"][name], path, _depth + 1))
    return len(found) == 1 and found[0]


def _dependencies(cls: ast.ClassDef, imports: Mapping[str, str]) -> Optional[List[str]]:
    """The classes ``cls`` derives from and builds, when it qualifies; else None."""
    if cls.decorator_list or cls.keywords:
        return None
    deps: List[str] = []
    for base in cls.bases:
        q = _qualify(base, imports)
        if q is None:
            return None
        deps.append(q)
    if not deps:
        return None  # no module at all
    scalars: Set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            scalars = _scalar_parameters(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and _value_dependency(stmt.value, imports, set()) != "":
            return None  # a class attribute the instances share (``fc = nn.Linear(2, 2)``)
    for node in ast.walk(cls):
        if isinstance(node, ast.Call):
            func = node.func
            named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if named in _ADDS or named in ("Parameter", "setattr"):
                return None
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t, v in _pairs(target, node.value):
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        dep = _value_dependency(v, imports, scalars)
                        if dep is None:
                            return None
                        if dep:
                            deps.append(dep)
                    elif isinstance(t, (ast.Tuple, ast.List, ast.Starred)) and _assigns_self(t):
                        return None
    return sorted(set(deps))


def _pairs(target: ast.expr, value: ast.expr) -> List[Tuple[ast.expr, ast.expr]]:
    """``self.a, self.b = a, b`` element by element; other targets whole."""
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return list(zip(target.elts, value.elts))
    return [(target, value)]


def _assigns_self(target: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" for n in ast.walk(target))


def _value_dependency(value: ast.expr, imports: Mapping[str, str], scalars: Set[str]) -> Optional[str]:
    """``""`` for a plain value, the qualified class name for an instance of a class
    (``Sampler(...)``), None for anything else."""
    if isinstance(value, ast.Constant) or isinstance(value, ast.JoinedStr):
        return ""
    if isinstance(value, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        parts = [v for v in ast.iter_child_nodes(value) if isinstance(v, ast.expr)]
        return "" if all(_value_dependency(p, imports, scalars) == "" for p in parts) else None
    if isinstance(value, ast.Name):
        return "" if value.id in scalars else None
    if isinstance(value, ast.UnaryOp) or isinstance(value, ast.BinOp):
        parts = [v for v in ast.iter_child_nodes(value) if isinstance(v, ast.expr)]
        return "" if all(_value_dependency(p, imports, scalars) == "" for p in parts) else None
    if not isinstance(value, ast.Call) or any(k.arg == "requires_grad" for k in value.keywords):
        return None
    if isinstance(value.func, ast.Name) and value.func.id in _BUILTINS and value.func.id not in imports:
        return ""
    q = _qualify(value.func, imports)
    if q is None:
        return None
    if q.startswith("torch.") and not q.startswith("torch.nn."):
        return ""  # a tensor (``torch.zeros``), a plain attribute rather than a parameter
    return q if q.rpartition(".")[2][:1].isupper() else None


def _scalar_parameters(init: ast.FunctionDef) -> Set[str]:
    """``__init__``'s parameters annotated with a scalar type (``Optional`` too), or
    unannotated with a constant default."""
    args = [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs][1:]
    defaults = dict(zip([a.arg for a in [*init.args.posonlyargs, *init.args.args]][::-1], init.args.defaults[::-1]))
    defaults.update({a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d is not None})
    found: Set[str] = set()
    for arg in args:
        note = arg.annotation
        if isinstance(note, ast.Subscript) and isinstance(note.value, ast.Name) and note.value.id == "Optional":
            note = note.slice  # ``Optional[int]``
        elif isinstance(note, ast.BinOp) and isinstance(note.right, ast.Constant) and note.right.value is None:
            note = note.left  # ``int | None``
        if isinstance(note, ast.Name) and note.id in _SCALARS:
            found.add(arg.arg)
        else:
            default = defaults.get(arg.arg)
            if note is None and isinstance(default, ast.Constant) and default.value is not None:
                found.add(arg.arg)
    rebound = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return found - rebound


def _qualify(expr: ast.expr, imports: Mapping[str, str]) -> Optional[str]:
    """The dotted name ``expr`` refers to through the file's imports; a name the file
    defines itself is kept as it is (the file's own module prefixes it later)."""
    text = ast_imports.dotted(expr)
    if text is None:
        return None
    root, _, rest = text.partition(".")
    return imports[root] + ("." + rest if rest else "") if root in imports else None
