"""The project index: what the other files of a run say about this one.

A file's questions sometimes have their answer in another file: whether a class
derives from ``nn.Module`` through a base defined elsewhere (``class
Tagger(flair.nn.Model)``), whether every caller of a helper runs it under
no_grad, whether a method is called from inference code in another module
(``agent.act_e_greedy(state)`` in a ``test()`` loop of ``test.py``). The index
holds those facts, one small *summary* per file, computed by
:func:`summarize` from Python's ``ast`` (a tenth of the cost of the LibCST
parse the checks need) and cached by the runner with the file's findings.

Summaries are plain JSON data, keyed by the dotted names a file may be
imported as (every suffix of its path: ``pkg/sub/mod.py`` is ``mod``,
``sub.mod`` and ``pkg.sub.mod``, so that a checkout without ``__init__.py``
files, or checked from inside its package, resolves the same). Facts are
recorded only where the file is sure of them; every query answers None
(unknown) for what no summary says, and the semantic model then keeps its
in-file answer. There is no index in force globally: every entry point builds
one for its run (``gradlint.session``), and it reaches a file's semantic model
explicitly (``SemanticModel.project``); without one, nothing changes.

Which files a run indexes is the session's choice: the files it checks, plus,
for a run of few files (a pre-commit hook, an editor, stdin), the project files
they import and the other ``.py`` files around them (``semantic.neighbours``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from gradlint.semantic import (ast_decorators, ast_eval_methods, ast_factories, ast_param_free, ast_forwarders, ast_frozen, ast_imports, bounds, eval_callers, eval_returns, import_effects, loss_returns,
                               result_uses)
from gradlint.semantic.module_files import absolute, find_module_files, index_names, module_names, own_module, project_root
from gradlint.semantic.torch_api import INFERENCE_WORD, NN_MODULE, is_nn_module_class

# One file's summary, as JSON data (it is cached and shared with worker processes).
Summary = Dict[str, Any]

# Bumped when the shape of a summary changes: cached summaries of another
# version are computed again.
SUMMARY_VERSION = 14
_NO_GRAD_GUARDS = frozenset({"no_grad", "inference_mode"})
_MODULE_BASES = NN_MODULE | frozenset(
    {"pytorch_lightning.LightningModule", "lightning.LightningModule", "lightning.pytorch.LightningModule"}
)
# Names a bare call may reach without any import: not another module's function.
_BUILTINS = frozenset(dir(builtins))
# Bases that make no class an ``nn.Module``.
_PLAIN_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol"})
# Unit-test files, by the names pytest collects.
UNIT_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")
# Words that make a file worth summarising at all: classes, calls made from
# inference code or under a grad-mode guard, calls of methods named for it
# (whose every caller ``result_uses`` must see).
_WORTH = re.compile(
    rf"\bclass\b|no_grad|inference_mode|set_grad_enabled|\.eval\(|def\s+\w*(?:{result_uses.CALLED_WORDS})"
    # ``test_engine(cfg, ...)``: a caller that shows a ``test*`` function is no collected test
    rf"|{result_uses.CALL_NAMED}|\btest\w*\s*\(",
    re.IGNORECASE,
)


def summarize(path: str, source: str) -> Optional[Summary]:
    """The facts ``source`` (the file at ``path``) gives other files; None when it
    has none or does not parse."""
    package_init = PurePath(path).stem == "__init__"
    if not _WORTH.search(source) and not (package_init and "import" in source):
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names = module_names(path)
    # A package's ``__init__.py`` is the package itself: ``from .energy import X`` there
    # reads ``pkg.energy``.
    package = (names[-1] if package_init else names[-1].rpartition(".")[0]) if names else ""
    imports = ast_imports.imports(tree, package)
    summarizer = _Summarizer(imports, UNIT_TEST_FILE.search(path.replace("\\", "/")) is not None)
    summary = summarizer.run(tree)
    summary.update(eval_callers.summary_entry(tree, summarizer._function_target, summarizer.unit_tests))
    summary.update(eval_returns.summary_entry(tree, summarizer.unit_tests))
    for entry in (import_effects.summary_entry(tree), ast_decorators.summary_entry(tree), ast_frozen.summary_entry(tree, imports), ast_eval_methods.summary_entry(tree, source),
                  ast_param_free.summary_entry(tree, imports, names[-1] if names else ""),
                  loss_returns.summary_entry(tree)):
        summary.update(entry)
    summary["stars"] = ast_imports.star_imports(tree, package)
    summary["dropped"] = result_uses.dropped_results(tree, source)
    # What a package re-exports (``from .energy import NegativeEnergy``): its classes
    # are asked for by the package's name.
    summary["exports"] = ast_imports.from_imports(tree, package) if package_init else {}
    if not any(summary.values()):
        return None
    summary["v"] = SUMMARY_VERSION
    return summary


def valid(summary: object) -> bool:
    """Whether ``summary`` (read back from a cache) has the shape ``summarize`` gives."""
    if summary is None:
        return True
    if not isinstance(summary, dict) or summary.get("v") != SUMMARY_VERSION:
        return False
    classes, calls, inference = summary.get("classes"), summary.get("calls"), summary.get("inference_calls")
    forwards, forwards_if = summary.get("forwards"), summary.get("forwards_if")
    functions, stars, dropped = summary.get("function_calls"), summary.get("stars"), summary.get("dropped")
    wraps, exports, runs = summary.get("wraps"), summary.get("exports"), summary.get("runs_attributes")
    return (
        eval_returns.valid(summary.get("returns_eval", {}))
        and import_effects.valid(summary) and ast_decorators.valid(summary) and ast_frozen.valid(summary) and ast_eval_methods.valid(summary) and ast_param_free.valid(summary)
        and loss_returns.valid(summary.get("zero_dim_calls", {}))
        and isinstance(dropped, dict)
        and all(type(n) is int for n in dropped.values())
        and isinstance(functions, dict)
        and all(isinstance(v, list) and len(v) == 2 and all(type(n) is int for n in v) for v in functions.values())
        and isinstance(stars, list) and all(isinstance(m, str) for m in stars)
        and isinstance(forwards_if, dict)
        and isinstance(summary.get("factories"), dict)
        and all(isinstance(v, list) and all(isinstance(q, str) for q in v) for v in summary["factories"].values())
        and all(
            isinstance(v, dict) and all(isinstance(m, list) and all(isinstance(q, str) for q in m) for m in v.values())
            for v in forwards_if.values()
        )
        and isinstance(forwards, dict) and all(isinstance(v, list) and all(isinstance(m, str) for m in v) for v in forwards.values())
        and isinstance(exports, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in exports.items())
        and isinstance(runs, dict)
        and all(isinstance(v, list) and len(v) == 2 and isinstance(v[0], list) for v in runs.values())
        and isinstance(wraps, dict)
        and all(isinstance(v, list) and len(v) == 3 and type(v[0]) is int and isinstance(v[1], str) for v in wraps.values())
        and isinstance(classes, dict)
        and all(isinstance(v, list) and all(isinstance(b, str) for b in v) for v in classes.values())
        and isinstance(calls, dict)
        and all(isinstance(v, list) and len(v) == 2 and all(type(n) is int for n in v) for v in calls.values())
        and isinstance(inference, list)
        and all(
            isinstance(c, list) and len(c) == 3 and isinstance(c[0], str) and isinstance(c[1], str) and type(c[2]) is int
            for c in inference
        )
    )


def _guard_disables(expr: ast.expr) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)``
    (any spelling of the module)."""
    func = expr.func if isinstance(expr, ast.Call) else expr
    name = (ast_imports.dotted(func) or "").rpartition(".")[2]
    if name == "set_grad_enabled":
        return _switches_off(expr)
    return name in _NO_GRAD_GUARDS


def _switches_off(expr: ast.expr) -> bool:
    """``set_grad_enabled(False)``: a literal False as its first argument."""
    return isinstance(expr, ast.Call) and len(expr.args) == 1 and isinstance(expr.args[0], ast.Constant) and expr.args[0].value is False


def _grad_switch(stmt: ast.stmt) -> Optional[bool]:
    """A ``torch.set_grad_enabled(flag)`` statement: whether it turns gradients off
    (True), on (False); None for any other statement or a flag not written out."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if (ast_imports.dotted(call.func) or "").rpartition(".")[2] != "set_grad_enabled" or len(call.args) != 1:
        return None
    flag = call.args[0]
    return (not flag.value) if isinstance(flag, ast.Constant) and isinstance(flag.value, bool) else None


def _is_inference_function(name: str) -> bool:
    return bool(INFERENCE_WORD.search(name.lower()))


class _Summarizer:
    def __init__(self, imports: Dict[str, str], unit_tests: bool) -> None:
        self.imports = imports
        # In a file pytest collects, ``test*`` functions are unit tests, not inference code.
        self.unit_tests = unit_tests
        self.classes: Dict[str, List[str]] = {}
        # class name -> its methods that run the instance's forward (``_forward_methods``)
        self.forwards: Dict[str, List[str]] = {}
        # class name -> {method: classes of the project}: the method runs the forward of
        # a submodule built from one of those classes, a forward if that class is an
        # ``nn.Module`` (which only the whole index can tell)
        self.forwards_if: Dict[str, Dict[str, List[str]]] = {}
        # class name -> [position, parameter, method]: a forwarding wrapper, and
        # -> [attributes, method]: what calling an instance runs (``semantic.ast_forwarders``)
        self.wraps: Dict[str, List[object]] = {}
        self.runs_attributes: Dict[str, List[object]] = {}
        # function name -> the classes it may build and return (``semantic.ast_factories``)
        self.factories: Dict[str, List[str]] = {}
        # callee name -> [call sites, call sites under no_grad]: by the last name, as
        # methods are called (``agent.act(x)``; the receiver's class is rarely known)
        self.calls: Dict[str, List[int]] = {}
        # the same for calls of module-level functions, by what the callee resolves to:
        # an imported function (``predict(x)`` after ``from cli import predict``, or
        # ``cli.predict(x)``), or ``*name`` for a name no import or definition of the file
        # binds (a star import may); a method's name (``x.predict(x)``) is none of them
        self.function_calls: Dict[str, List[int]] = {}
        # [method name, calling function, line]: a method called on another object
        # from inference code, with gradients on
        self.inference_calls: List[List[object]] = []
        # names the module binds at its top level (set by ``run``)
        self.defined: Set[str] = set()

    def run(self, tree: ast.Module) -> Summary:
        self.defined = {
            n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        } | {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        top = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = [self._qualify(b) for b in node.bases if ast_imports.dotted(b) is not None]
                runs, conditional = self._forward_methods(node, top)
                if runs:
                    self.forwards[node.name] = runs
                if conditional:
                    self.forwards_if[node.name] = conditional
                wraps = ast_forwarders.forwarded_parameter(node)
                if wraps is not None:
                    self.wraps[node.name] = wraps
                attributes = ast_forwarders.forwarded_attributes(node)
                if attributes is not None:
                    self.runs_attributes[node.name] = attributes
        self._block(tree.body, no_grad=False, inference=None)
        self.factories = ast_factories.factories(tree, lambda e: self._qualify(e) if ast_imports.dotted(e) else None)
        return {
            "classes": self.classes,
            "calls": self.calls,
            "inference_calls": self.inference_calls,
            "forwards": self.forwards,
            "forwards_if": self.forwards_if,
            "function_calls": self.function_calls,
            "wraps": self.wraps,
            "runs_attributes": self.runs_attributes,
            "factories": self.factories,
        }

    def _forward_methods(self, cls: ast.ClassDef, top: Dict[str, ast.ClassDef]) -> Tuple[List[str], Dict[str, List[str]]]:
        """The methods of ``cls`` that run a forward of the instance, should it be an
        ``nn.Module`` (which ``Project.method_runs_forward`` asks of the bases): they
        call ``self(...)``, ``self.forward(...)``, a submodule ``self.<attr>(...)``
        that every ``self.<attr> = ...`` of the class builds with a ``torch.nn``
        constructor, or another such method (``model.calculate_objective(x, y)``
        calling ``self.forward(x)``).

        Also, for the other methods, the classes of the project whose instances they
        run: ``self.local_net(x)`` where every ``self.local_net = ...`` builds one
        class that is not ``torch.nn``'s (``LocalSubNet(depth)``); the method runs a
        forward when one of them derives from ``nn.Module``.

        What ``self.<attr>`` holds is read from the methods of ``cls`` and of its bases
        defined in the file (``VQModelInterface(VQModel)`` runs the ``self.encoder``
        that ``VQModel.__init__`` builds): every assignment counts, overridden or not."""
        methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
        built: Dict[str, bool] = {}
        # attr -> the one class every ``self.<attr> = C(...)`` builds, or None
        built_from: Dict[str, Optional[str]] = {}
        for method in list(methods.values()) + [s for base in _file_bases(cls, top) for s in base.body if isinstance(s, ast.FunctionDef)]:
            for node in ast.walk(method):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                            value = node.value
                            ok = (
                                not isinstance(node, ast.AugAssign)
                                and isinstance(value, ast.Call)
                                and ast_imports.dotted(value.func) is not None
                                and is_nn_module_class(self._qualify(value.func))
                            )
                            built[t.attr] = built.get(t.attr, True) and ok
                            made = (
                                self._qualify(value.func)
                                if not isinstance(node, ast.AugAssign) and isinstance(value, ast.Call) and ast_imports.dotted(value.func) is not None
                                else None
                            )
                            if t.attr in built_from and built_from[t.attr] != made:
                                made = None
                            built_from[t.attr] = made
        submodules = {name for name, ok in built.items() if ok}
        calls: Dict[str, Set[str]] = {}  # method -> what it calls on self
        for name, method in methods.items():
            args = method.args.posonlyargs + method.args.args
            if not args or method.decorator_list:
                # ``@staticmethod``; ``@torch.no_grad()`` (``encode`` of a sentence encoder);
                # a decorator of the project's, which may pick a grad mode itself
                continue
            me = args[0].arg
            found: Set[str] = set()
            items = _submodule_items(method, me, submodules)
            for node in _walk_body(method):
                if isinstance(node, ast.Call):
                    func = node.func
                    if isinstance(func, ast.Name) and func.id == me:
                        found.add("forward")
                    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == me:
                        found.add(func.attr)
                    elif isinstance(func, ast.Subscript) and _self_attribute(func.value, me) in submodules:
                        # ``self.lins[-1](x)``: an item of a ``ModuleList``/``Sequential`` is a module
                        found.add(_self_attribute(func.value, me))  # type: ignore[arg-type]
                    elif isinstance(func, ast.Name) and func.id in items:
                        found.add(items[func.id])  # ``for i, lin in enumerate(self.lins): x = lin(x)``
            calls[name] = found
        runs = {n for n, c in calls.items() if "forward" in c and n != "forward" or c & submodules}
        changed = True
        while changed:
            changed = False
            for n, c in calls.items():
                if n not in runs and c & runs:
                    runs.add(n)
                    changed = True
        project = {a: q for a, q in built_from.items() if q is not None and a not in submodules and not q.startswith("torch.")}
        wants: Dict[str, Set[str]] = {n: {project[a] for a in c if a in project} for n, c in calls.items() if n not in runs}
        changed = True
        while changed:
            changed = False
            for n, c in calls.items():
                if n in wants:
                    more = set().union(*(wants.get(m, set()) for m in c if m != n))
                    if not more <= wants[n]:
                        wants[n] |= more
                        changed = True
        return sorted(runs), {n: sorted(q) for n, q in sorted(wants.items()) if q and n != "forward"}

    def _function_target(self, func: ast.expr) -> Optional[str]:
        """What a call of ``func`` may run of another module: the qualified name of an
        imported function or module attribute, ``*name`` for a bare name the file
        neither imports nor defines at module level; None for a method call."""
        text = ast_imports.dotted(func)
        if text is None:
            return None
        root = text.partition(".")[0]
        if root in self.imports:
            return self._qualify(func)
        if isinstance(func, ast.Name) and root not in self.defined and root not in _BUILTINS:
            return "*" + root
        return None

    def _qualify(self, expr: ast.expr) -> str:
        text = ast_imports.dotted(expr) or ""
        root, _, rest = text.partition(".")
        if root in self.imports:
            return self.imports[root] + ("." + rest if rest else "")
        return "." + text  # a name of this module

    def _block(self, body: Sequence[ast.stmt], no_grad: bool, inference: Optional[str]) -> None:
        for stmt in body:
            self._stmt(stmt, no_grad, inference)
            switch = _grad_switch(stmt)
            if switch is not None:
                no_grad = switch  # ``torch.set_grad_enabled(False)``: the rest of the block

    def _stmt(self, stmt: ast.stmt, no_grad: bool, inference: Optional[str]) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorated = any(_guard_disables(d) for d in stmt.decorator_list)
            unit_test = self.unit_tests and stmt.name.startswith("test")
            name = stmt.name if _is_inference_function(stmt.name) and not unit_test else None
            self._block(stmt.body, decorated, name)
            return
        if isinstance(stmt, ast.ClassDef):
            self._block(stmt.body, False, None)
            return
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self._expr(item.context_expr, no_grad, inference)
            inner = no_grad or any(_guard_disables(i.context_expr) for i in stmt.items)
            self._block(stmt.body, inner, inference)
            return
        self._children(stmt, no_grad, inference)

    def _children(self, node: ast.AST, no_grad: bool, inference: Optional[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self._stmt(child, no_grad, inference)
            elif isinstance(child, ast.expr):
                self._expr(child, no_grad, inference)
            else:  # an ``except`` clause, a ``case``, arguments
                self._children(child, no_grad, inference)

    def _expr(self, expr: ast.expr, no_grad: bool, inference: Optional[str]) -> None:
        for node in ast.walk(expr):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name is None:
                continue
            counts = self.calls.setdefault(name, [0, 0])
            counts[0] += 1
            counts[1] += no_grad
            target = self._function_target(func)
            if target is not None:
                counts = self.function_calls.setdefault(target, [0, 0])
                counts[0] += 1
                counts[1] += no_grad
            receiver = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
            if inference is not None and not no_grad and receiver is not None and receiver not in ("self", "cls") and receiver not in self.imports:
                self.inference_calls.append([name, inference, node.lineno])


def _file_bases(cls: ast.ClassDef, top: Dict[str, ast.ClassDef]) -> List[ast.ClassDef]:
    """The bases of ``cls`` defined at the top of its file, theirs too, nearest first."""
    found: List[ast.ClassDef] = []
    todo = [cls]
    while todo and len(found) <= bounds.PROJECT_BASE_LEVELS:
        for b in todo.pop(0).bases:
            base = top.get(b.id) if isinstance(b, ast.Name) else None
            if base is not None and base is not cls and base not in found:
                found.append(base)
                todo.append(base)
    return found


def _self_attribute(expr: ast.AST, me: str) -> Optional[str]:
    """``x`` for ``self.x``, ``self.x[...]`` (``me`` naming the instance)."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == me:
        return expr.attr
    return None


def _submodule_items(method: ast.FunctionDef, me: str, submodules: Set[str]) -> Dict[str, str]:
    """Loop variables of ``method`` that take the items of a submodule container (``for
    lin in self.lins``, ``for i, lin in enumerate(self.lins[:-1])`` for ``self.lins =
    nn.ModuleList()``), bound nowhere else in it: name -> the attribute. Iterating a
    ``ModuleList`` or ``Sequential`` gives its modules (a ``ModuleDict`` its keys,
    which no code calls)."""
    found: Dict[str, str] = {}
    stores: Dict[str, int] = {}
    for node in _walk_body(method):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        if not isinstance(node, ast.For):
            continue
        it, target = node.iter, node.target
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "enumerate"
            and len(it.args) == 1
            and isinstance(target, ast.Tuple)
            and len(target.elts) == 2
        ):
            it, target = it.args[0], target.elts[1]
        attr = _self_attribute(it, me)
        if attr in submodules and isinstance(target, ast.Name):
            found[target.id] = attr
    return {n: a for n, a in found.items() if stores.get(n) == 1}


def _walk_body(func: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of ``func``'s body, not of the functions, lambdas and classes in it
    (they run when called, and their ``self`` is another)."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack: List[ast.AST] = [s for s in func.body if not isinstance(s, nested)]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, nested):
                stack.append(child)


@dataclass
class InferenceCaller:
    """A call of a method from inference code in another file."""

    path: str
    function: str
    line: int


def summary_hash(summary: Summary) -> str:
    return hashlib.sha256(json.dumps(summary, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


@dataclass
class Project:
    """The summaries of a run's files, by file path."""

    summaries: Dict[str, Summary] = field(default_factory=dict)
    # ``summary_hash`` of each summary, where already known (from a cache).
    hashes: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._roots: Dict[str, str] = {}
        self._by_module: Dict[Tuple[str, str], List[str]] = {}
        for path in sorted(self.summaries):
            root = self.root(path)
            for name in index_names(path):
                self._by_module.setdefault((root, name), []).append(path)
        self._module_class: Dict[Tuple[str, str], Optional[bool]] = {}
        # name -> what the summaries say of it, by file in path order: asked once
        # per function of every file checked, so not a scan of every summary each time.
        self._calls_by_name: Optional[Dict[str, List[Tuple[str, List[int]]]]] = None
        self._inference_by_name: Optional[Dict[str, List[Tuple[str, str, int]]]] = None
        self._functions_by_target: Optional[Dict[str, List[Tuple[str, List[int]]]]] = None

    def root(self, path: str) -> str:
        found = self._roots.get(path)
        if found is None:
            found = self._roots[path] = project_root(path)
        return found

    @functools.cached_property
    def digest(self) -> str:
        """Changes whenever a fact of the index does: what the findings of a file,
        cached, depend on besides the file. Computed once: it is part of every
        file's cache key, and the summaries do not change after the index is built."""
        digest = hashlib.sha256()
        for path in sorted(self.summaries):
            found = self.hashes.get(path) or summary_hash(self.summaries[path])
            digest.update(f"{path}\0{found}\0".encode())
        return digest.hexdigest()[:16]

    # -- classes ---------------------------------------------------------------------

    def _module_files(self, root: str, module: str) -> Sequence[str]:
        return find_module_files(self._by_module, root, module)  # see ``find_module_files``

    def _classes(self, qualname: str, root: str) -> Iterator[Tuple[str, List[str]]]:
        """(defining file, qualified bases) for each class of the index named ``qualname``."""
        for path, name in self._class_files(qualname, root):
            yield path, self.summaries[path]["classes"][name]

    def module_files(self, module: str, origin: str) -> Sequence[str]:
        return self._module_files(self.root(origin), module)  # see ``_module_files``

    def _class_files(self, qualname: str, root: str, _depth: int = 0) -> Iterator[Tuple[str, str]]:
        """(defining file, class name) of each class named ``qualname``, also through a
        package that re-exports it (``oodtk.NegativeEnergy`` of ``oodtk/energy.py``)."""
        module, _, name = qualname.rpartition(".")
        for path in self._module_files(root, module):
            summary = self.summaries[path]
            if name in summary.get("classes", {}):
                yield path, name
            elif name in summary.get("exports", {}) and _depth < bounds.PROJECT_BASE_LEVELS:
                yield from self._class_files(summary["exports"][name], root, _depth + 1)

    def has_class(self, qualname: str, origin: str) -> bool:
        """Whether the index holds a class named ``qualname`` in ``origin``'s project."""
        qualname = absolute(qualname, origin)
        return any(True for _ in self._classes(qualname, self.root(origin)))

    def factory_returns_module(self, qualname: str, origin: str) -> bool:
        """Whether the function ``qualname`` of a file of ``origin``'s project builds and
        returns an ``nn.Module`` whichever class it picks (``semantic.ast_factories``)."""
        qualname = absolute(qualname, origin)
        module, _, name = qualname.rpartition(".")
        files = self._module_files(self.root(origin), module)
        built = [self.summaries[p].get("factories", {}).get(name) for p in files]
        if len(built) != 1 or not built[0]:
            return False
        here = own_module(files[0])
        return all(self.derives_from_module(here + q if q.startswith(".") else q, origin) is True for q in built[0])

    def derives_from_module(self, qualname: str, origin: str, _depth: int = 0) -> Optional[bool]:
        """Whether the class ``qualname`` (``flair.nn.Model``), defined in a file of the
        project of ``origin``, derives from ``nn.Module``; None when no such file
        defines it."""
        qualname = absolute(qualname, origin)
        if qualname in _MODULE_BASES or is_nn_module_class(qualname):
            return True
        if _depth > bounds.PROJECT_BASE_LEVELS:
            return None
        root = self.root(origin)
        if _depth == 0 and (root, qualname) in self._module_class:
            return self._module_class[(root, qualname)]
        found: Optional[bool] = None
        for path, bases in self._classes(qualname, root):
            found = False
            module = own_module(path)
            for base in bases:
                full = module + base if base.startswith(".") else base
                if self.derives_from_module(full, origin, _depth + 1):
                    found = True
                    break
            if found:
                break
        if _depth == 0:
            self._module_class[(root, qualname)] = found
        return found

    def derives_from(self, qualname: str, origin: str, targets: FrozenSet[str], _depth: int = 0) -> bool:
        """Whether the class ``qualname`` is one of ``targets`` or a file of the project of
        ``origin`` defines it on such a base, directly or through the project's classes
        (``class Variable(autograd.Variable)`` of a project's utilities)."""
        qualname = absolute(qualname, origin)
        if qualname in targets:
            return True
        if _depth > bounds.PROJECT_BASE_LEVELS:
            return False
        for path, bases in self._classes(qualname, self.root(origin)):
            module = own_module(path)
            if any(self.derives_from(module + b if b.startswith(".") else b, origin, targets, _depth + 1) for b in bases):
                return True
        return False

    def derives_from_other_framework(self, qualname: str, origin: str, _depth: int = 0) -> bool:
        """Whether the class ``qualname`` of the project of ``origin`` is a model of a
        framework other than PyTorch: it is one (``paddle.nn.Layer``), or a file of the
        index defines it on such a base, directly or through the project's classes."""
        qualname = absolute(qualname, origin)
        # Imported here: the project index is loaded for every run, the frameworks
        # table only once a rule asks (a file without triggers never does).
        from gradlint.semantic.frameworks import is_other_framework_class

        if is_other_framework_class(qualname):
            return True
        if _depth > bounds.PROJECT_BASE_LEVELS or qualname in _MODULE_BASES or is_nn_module_class(qualname):
            return False
        for path, bases in self._classes(qualname, self.root(origin)):
            module = own_module(path)
            for base in bases:
                full = module + base if base.startswith(".") else base
                if self.derives_from_other_framework(full, origin, _depth + 1):
                    return True
        return False

    def surely_not_module(self, qualname: str, origin: str, _depth: int = 0) -> bool:
        """Whether the class ``qualname`` of ``origin``'s project surely derives from no
        ``nn.Module``: a file of the index defines it, each base ``object``, ``abc.ABC``,
        ``typing.Generic``/``Protocol`` or such a class. A base no file defines: False."""
        qualname = absolute(qualname, origin)
        if _depth > bounds.PROJECT_BASE_LEVELS or qualname in _MODULE_BASES or is_nn_module_class(qualname):
            return False
        root = self.root(origin)
        found = False
        for path, bases in self._classes(qualname, root):
            module = own_module(path)
            for base in bases:
                if base in (".object", "builtins.object") or base in _PLAIN_BASES:
                    continue
                full = module + base if base.startswith(".") else base
                if not self.surely_not_module(full, origin, _depth + 1):
                    return False
            found = True
        return found

    def method_runs_forward(self, qualname: str, method: str, origin: str) -> bool:
        """Whether ``x.method(...)`` runs a forward for ``x`` an instance of the class
        ``qualname`` of the project of ``origin``: the class derives from ``nn.Module``
        and its own body defines ``method`` as one that runs the instance's forward
        (see ``_Summarizer._forward_methods``). A method inherited from a base is not
        looked for: unknown, so False."""
        qualname = absolute(qualname, origin)
        if self.derives_from_module(qualname, origin) is not True:
            return False
        for path, name in self._class_files(qualname, self.root(origin)):
            summary = self.summaries[path]
            if method in summary.get("forwards", {}).get(name, ()):
                return True
            # ``self.local_net(x)`` runs a forward when ``local_net``'s class is a module
            here = own_module(path)
            runs = summary.get("forwards_if", {}).get(name, {}).get(method, ())
            return any(self.derives_from_module(here + q if q.startswith(".") else q, origin) is True for q in runs)
        return False

    def forwarding(self, qualname: str, origin: str, key: str) -> Optional[List[Any]]:
        """The ``wraps`` or ``runs_attributes`` entry of the class ``qualname`` (``semantic.ast_forwarders``);
        one read off ``forward`` (its last item) only for a class that derives from ``nn.Module``."""
        qualname = absolute(qualname, origin)
        for path, name in self._class_files(qualname, self.root(origin)):
            entry = self.summaries[path].get(key, {}).get(name)
            if entry is None or (entry[-1] == "forward" and self.derives_from_module(qualname, origin) is not True):
                return None
            return list(entry)
        return None

    # -- callers ---------------------------------------------------------------------

    def function_call_counts(self, name: str, origin: str) -> Tuple[int, int]:
        """(call sites, of them under no_grad) of the module-level function ``name`` of
        ``origin`` in the other files of its project: ``name(...)`` where an import binds
        it to that function, or a star import of its module may; ``mod.name(...)`` where
        ``mod`` is that module. A method of the same name (``x.name(...)``) is not one:
        the receiver would have to be the module, which nothing shows."""
        if self._functions_by_target is None:
            by_target: Dict[str, List[Tuple[str, List[int]]]] = {}
            for path in sorted(self.summaries):
                for target, counts in self.summaries[path].get("function_calls", {}).items():
                    by_target.setdefault(target, []).append((path, counts))
            self._functions_by_target = by_target
        own = module_names(origin)
        found = [site for m in own for site in self._functions_by_target.get(f"{m}.{name}", ())]
        found += [
            (path, counts)
            for path, counts in self._functions_by_target.get("*" + name, ())
            if any(m in own for m in self.summaries[path].get("stars", ()))
        ]
        total = disabled = 0
        root = self.root(origin)
        for path, counts in found:
            if counts and path != origin and self.root(path) == root:
                total += counts[0]
                disabled += counts[1]
        return total, disabled

    def eval_passes(self, name: str, origin: str) -> List[Tuple[str, List[Any]]]:
        """(calling file, [line, eval() line, positions, keywords]) for each call of the function
        ``name`` of ``origin`` in the other files of its project that hands it names in eval
        mode (``eval_callers``), resolved as ``function_call_counts`` resolves calls."""
        own, root = module_names(origin), self.root(origin)
        found = []
        for path in sorted(self.summaries):
            if path == origin or self.root(path) != root:
                continue
            passes = self.summaries[path].get("eval_passes", {})
            stars = any(m in own for m in self.summaries[path].get("stars", ()))
            for target in [f"{m}.{name}" for m in own] + (["*" + name] if stars else []):
                found += [(path, entry) for entry in passes.get(target, ())]
        return found

    @functools.cached_property
    def eval_returning(self) -> FrozenSet[str]:
        """The names of the functions whose summaries say they return an eval-mode model."""
        return frozenset(n for s in self.summaries.values() for n in s.get("returns_eval", {}))

    def returns_eval(self, qualname: str, origin: str) -> FrozenSet[Tuple[int, int]]:
        """Where the function ``qualname`` of ``origin``'s project returns an eval-mode model (``eval_returns``), if one file defines it."""
        qualname = absolute(qualname, origin)
        module, _, name = qualname.rpartition(".")
        found = [self.summaries[p].get("returns_eval", {}).get(name) for p in self._module_files(self.root(origin), module)]
        return frozenset((i, n) for i, n in found[0]) if len(found) == 1 and found[0] else frozenset()

    def zero_dim_call(self, qualname: str, origin: str) -> bool:
        """Whether calling an instance of the class ``qualname`` of ``origin``'s project,
        defined by one file, returns a 0-dim tensor (``loss_returns``): its ``__call__``
        does, or its ``forward`` does and it derives from ``nn.Module``."""
        qualname = absolute(qualname, origin)
        module, _, name = qualname.rpartition(".")
        found = [self.summaries[p].get("zero_dim_calls", {}).get(name) for p in self._module_files(self.root(origin), module)]
        if len(found) != 1 or found[0] is None:
            return False
        return found[0] == "__call__" or self.derives_from_module(qualname, origin) is True

    def call_counts(self, name: str, origin: str) -> Tuple[int, int]:
        """(call sites of ``name``, of them under no_grad) in the other files of
        ``origin``'s project, by the callee's last name: ``x.f(...)`` for a method,
        whatever ``x`` is (``function_call_counts`` is what a module-level function has)."""
        if self._calls_by_name is None:
            by_name: Dict[str, List[Tuple[str, List[int]]]] = {}
            for path in sorted(self.summaries):
                for callee, counts in self.summaries[path].get("calls", {}).items():
                    by_name.setdefault(callee, []).append((path, counts))
            self._calls_by_name = by_name
        total = disabled = 0
        root = self.root(origin)
        for path, counts in self._calls_by_name.get(name, ()):
            if counts and path != origin and self.root(path) == root:
                total += counts[0]
                disabled += counts[1]
        return total, disabled

    def inference_called(self) -> FrozenSet[str]:
        """Every method name some file of the index calls from inference code, and every
        function name some file hands an eval-mode model (``eval_passes``)."""
        called = {c[0] for s in self.summaries.values() for c in s.get("inference_calls", ())}
        return frozenset(called | {t.rpartition(".")[2].lstrip("*") for s in self.summaries.values() for t in s.get("eval_passes", {})})

    def inference_callers(self, method: str, origin: str) -> List[InferenceCaller]:
        """Calls ``x.method(...)`` made with gradients on from inference code (a
        function named for it: ``test``, ``evaluate``) in the other files of
        ``origin``'s project."""
        if self._inference_by_name is None:
            by_name: Dict[str, List[Tuple[str, str, int]]] = {}
            for path in sorted(self.summaries):
                for name, function, line in self.summaries[path].get("inference_calls", ()):
                    by_name.setdefault(str(name), []).append((path, str(function), int(line)))
            self._inference_by_name = by_name
        root = self.root(origin)
        return [
            InferenceCaller(path, function, line)
            for path, function, line in self._inference_by_name.get(method, ())
            if path != origin and self.root(path) == root
        ]


def build(sources: Iterable[Tuple[str, str]]) -> Project:
    """The index of ``(path, source)`` pairs (uncached: tests, the language server)."""
    summaries = {}
    for path, source in sources:
        s = summarize(path, source)
        if s is not None:
            summaries[path] = s
    return Project(summaries)
