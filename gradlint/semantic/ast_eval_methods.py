"""Methods a class inherits that leave an attribute of ``self`` in eval mode:
``super().forward_validation_data(loader)`` whose base method, in another file,
is ``self.model.eval()``; ``self.prepare()`` defined by a base class of the
file. The subclass's method then runs ``self.model`` in eval mode from the next
statement on, as it would after ``self.model.eval()`` of its own.

A statement of the method's body itself (so it runs on every call, before any
``return``) switches ``self.<attr>`` with ``.eval()`` or ``.train(False)``, and
no later statement trains it again or rebinds it. A project index fact
(``semantic.project``), read with Python's ``ast``; a class of the linted file
itself is read the same way (``semantic.inherited_eval`` asks both).
"""

from __future__ import annotations

import ast
import functools
from typing import Any, Dict, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple

from gradlint.semantic import ast_imports, bounds
from gradlint.semantic.module_files import absolute

KEY, TRAINED = "eval_methods", "trained_attributes"


class _Index(Protocol):
    """What this module asks of ``project.Project`` (which imports this module)."""

    @property
    def summaries(self) -> Mapping[str, Mapping[str, Any]]: ...

    def module_files(self, module: str, origin: str) -> Sequence[str]: ...


def summary_entry(tree: ast.Module, source: str) -> Dict[str, Dict[str, Any]]:
    """``{"eval_methods": {class: {method: [attr, ...]}}, "trained_attributes": {class:
    [attr, ...]}}`` for the module-level classes of ``tree`` that have a method leaving
    an attribute in eval mode; the second names what any method of such a class may
    train again (``*``: ``self.train()``, all of them). Nothing when no class has one."""
    found, trained = {}, {}
    if ".eval(" not in source and ".train(" not in source:
        return {}  # nothing switches a mode: every file of the project is asked
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef):
            methods = {m.name: left for m in cls.body if isinstance(m, ast.FunctionDef) and (left := _leaves_in_eval(m))}
            if methods:
                found[cls.name] = methods
                trained[cls.name] = sorted(_trained(cls))
    return {KEY: found, TRAINED: trained} if found else {}


def valid(summary: Mapping[str, Any]) -> bool:
    entry, trained = summary.get(KEY, {}), summary.get(TRAINED, {})
    return (
        isinstance(entry, dict)
        and all(
            isinstance(methods, dict) and all(isinstance(attrs, list) and all(isinstance(a, str) for a in attrs) for attrs in methods.values())
            for methods in entry.values()
        )
        and isinstance(trained, dict)
        and all(isinstance(attrs, list) and all(isinstance(a, str) for a in attrs) for attrs in trained.values())
    )


def index_fact(index: _Index, qualname: str, origin: str, name: str, _depth: int = 0) -> Tuple[List[str], List[str]]:
    """What the method ``name`` of the class ``qualname`` of ``origin``'s project leaves
    in eval mode, and what the class's methods may train again; also through a
    package that re-exports the class."""
    module, _, cls = absolute(qualname, origin).rpartition(".")
    for path in index.module_files(module, origin):
        summary = index.summaries[path]
        if cls in summary.get("classes", {}):
            return list(summary.get(KEY, {}).get(cls, {}).get(name, [])), list(summary.get(TRAINED, {}).get(cls, []))
        if cls in summary.get("exports", {}) and _depth < bounds.PROJECT_BASE_LEVELS:
            return index_fact(index, summary["exports"][cls], origin, name, _depth + 1)
    return [], []


@functools.lru_cache(maxsize=4)
def file_classes(source: str) -> Mapping[str, Tuple[Dict[str, List[str]], List[str], List[str]]]:
    """For each module-level class of the file: what each of its methods leaves in eval
    mode (every method named, ``[]`` for none), its bases' dotted names, and what its
    methods may train again."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: Dict[str, Tuple[Dict[str, List[str]], List[str], List[str]]] = {}
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name not in found:
            methods = {m.name: _leaves_in_eval(m) for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
            found[cls.name] = (methods, [d for d in (ast_imports.dotted(b) for b in cls.bases) if d is not None], sorted(_trained(cls)))
    return found


def _leaves_in_eval(method: ast.FunctionDef | ast.AsyncFunctionDef) -> List[str]:
    args = [*method.args.posonlyargs, *method.args.args]
    if method.decorator_list or isinstance(method, ast.AsyncFunctionDef) or not args:
        return []  # a decorator may run it some other way (a property, a cached call)
    me = args[0].arg
    left: List[str] = []
    sure = True  # no statement so far may have returned early: a switch now always runs
    for stmt in method.body:
        left = [a for a in left if not _ends(stmt, me, a)]
        attr = _switched(stmt, me) if sure else None
        if attr is not None and attr not in left:
            left.append(attr)
        if any(isinstance(n, (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)) for n in ast.walk(stmt)):
            sure = False
    return left


def _switched(stmt: ast.stmt, me: str) -> Optional[str]:
    """``attr`` for ``me.attr.eval()`` / ``me.attr.train(False)`` as the statement, also
    under ``if hasattr(model, "eval"):`` (where that fails, the value is no module)."""
    if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and _has_eval_test(stmt.test):
        stmt = stmt.body[0]
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return None
    target = call.func.value
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me):
        return None
    if call.func.attr == "eval" and not call.args and not call.keywords:
        return target.attr
    flags = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    if call.func.attr == "train" and len(flags) == 1 and isinstance(flags[0], ast.Constant) and flags[0].value is False:
        return target.attr
    return None


def _has_eval_test(test: ast.expr) -> bool:
    """``hasattr(x, "eval")``."""
    return (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr" and len(test.args) == 2
        and isinstance(test.args[1], ast.Constant) and test.args[1].value == "eval"
    )


def _ends(stmt: ast.stmt, me: str, attr: str) -> bool:
    """Whether ``stmt`` may train ``me.attr`` again (``me.attr.train()``, ``me.train()``)
    or bind it to something else."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "train":
            base = node.func.value
            if isinstance(base, ast.Name) and base.id == me:
                return True
            if isinstance(base, ast.Attribute) and base.attr == attr and isinstance(base.value, ast.Name) and base.value.id == me:
                return True
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
            targets: Iterable[ast.expr] = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute) and sub.attr == attr and isinstance(sub.value, ast.Name) and sub.value.id == me:
                        return True
    return False


def _trained(cls: ast.ClassDef) -> List[str]:
    """What the methods of ``cls`` may train again: ``attr`` for ``self.attr.train(...)``
    (``False`` aside), ``*`` for ``self.train(...)``."""
    found = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "train":
            flags = [*node.args, *(k.value for k in node.keywords if k.arg == "mode")]
            if len(flags) == 1 and isinstance(flags[0], ast.Constant) and flags[0].value is False:
                continue
            base = node.func.value
            if isinstance(base, ast.Name) and base.id == "self":
                found.add("*")
            elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self":
                found.add(base.attr)
    return sorted(found)
