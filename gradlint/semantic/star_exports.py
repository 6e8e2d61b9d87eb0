"""What ``from M import *`` binds when ``M`` is a module of the project.

0.3-era code bases gather their imports in one module (``from .torch_imports
import *``, ``from models import *``) and star-import it everywhere, so
``Variable`` and even ``torch`` reach a file with no import of them by name.
``exports(importer, module)`` finds the module's file next to the importing
file (relative to its package; an absolute name in the importer's own
directory, the first entry of ``sys.path`` for a script, or, when it names
the package the importer belongs to, from that package's root) and reads what it
binds at module level: each public name (or those of ``__all__``) and, where
an import binds it, the qualified name it stands for (``torch.autograd.Variable``;
``None`` for the module's own functions, classes and variables). Star imports
inside it are followed the same way, a few levels deep.

Only the standard library is used (``ast``): nothing of the module is run or
imported. A module that cannot be found or read gives None (nothing is known);
a star import inside it of a module that cannot be followed makes the result
incomplete (``complete=False``): a name it does not list may still be bound.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from gradlint.semantic import bounds

_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class Exports:
    names: Mapping[str, Optional[str]]  # name -> qualified name, None: the module's own object
    complete: bool  # False: a star import inside may bind names not listed


def module_file(importer: str, module: str) -> Optional[str]:
    """The file of ``module`` (``.helpers``, ``..pkg.mod``, ``models``) imported by ``importer``."""
    return next((c for c in _candidates(importer, module) if os.path.isfile(c)), None)


def _candidates(importer: str, module: str) -> List[str]:
    """The files, in the order they are tried, that may be ``module`` for ``importer``."""
    if not importer or importer == "-":
        return []
    here = os.path.dirname(os.path.abspath(importer))
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module[dots:].split(".") if p]
    if dots:
        base = here
        for _ in range(dots - 1):
            base = os.path.dirname(base)
        bases = [base]
    else:
        bases = [here]
        top = _top_package(here)
        if top is not None and parts and os.path.basename(top) == parts[0]:
            bases.append(os.path.dirname(top))  # ``from pkg.models.utils import *`` inside ``pkg``
    found: List[str] = []
    for base in bases:
        target = os.path.join(base, *parts)
        found += (target + ".py", os.path.join(target, "__init__.py")) if parts else (os.path.join(base, "__init__.py"),)
    return found


def _top_package(directory: str) -> Optional[str]:
    """The outermost package directory (``__init__.py`` in it and in each one
    between) that holds ``directory``, or None when it is no package."""
    top = None
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        top = directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return top


# A star import as a statement of its own line, and any spelling of one: when the two
# counts differ, the scan below cannot vouch for what the file's star imports read.
_STAR_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]*\*", re.M)
_ANY_STAR = re.compile(r"\bimport\s*\*")


def dependencies(importer: str, text: str) -> Optional[List[Tuple[str, int, int]]]:
    """The files that decide what the star imports of ``importer`` (whose source is
    ``text``) bind, with their ``(mtime_ns, size)``: ``(-1, -1)`` for a candidate file
    that does not exist (creating it changes what the import finds). A result computed
    from ``importer`` holds while they are unchanged. Followed as deep as ``exports``
    reads. None when the scan cannot list them (a star import it does not recognise)."""
    modules = _STAR_FROM.findall(text)
    if len(modules) != len(_ANY_STAR.findall(text)):
        return None
    found: Dict[str, Tuple[int, int]] = {}
    _collect(importer, modules, found, 0)
    return sorted((path, m, size) for path, (m, size) in found.items())


def _collect(importer: str, modules: List[str], found: Dict[str, Tuple[int, int]], depth: int) -> None:
    for module in modules:
        for candidate in _candidates(importer, module):
            if candidate in found:
                if found[candidate][0] >= 0:
                    break
                continue
            try:
                st = os.stat(candidate)
            except OSError:
                found[candidate] = (-1, -1)
                continue
            found[candidate] = (st.st_mtime_ns, st.st_size)
            if depth < bounds.STAR_IMPORT_LEVELS:
                tree_key = (candidate, st.st_mtime_ns, st.st_size)
                if tree_key not in _TREES:
                    _TREES[tree_key] = _parse(candidate, st.st_size)
                tree = _TREES[tree_key]
                inner = [
                    "." * node.level + (node.module or "")
                    for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
                ] if tree is not None else []
                _collect(os.path.realpath(candidate), inner, found, depth + 1)
            break


def exports(importer: str, module: str, torch_exports: Mapping[str, FrozenSet[str]]) -> Optional[Exports]:
    """What ``from <module> import *`` binds in ``importer``, when ``module`` is a file of the project."""
    path = module_file(importer, module)
    if path is None:
        return None
    return _exports_of(os.path.realpath(path), _freeze(torch_exports), 0, ())


def _freeze(torch_exports: Mapping[str, FrozenSet[str]]) -> Tuple[Tuple[str, FrozenSet[str]], ...]:
    return tuple(sorted(torch_exports.items()))


_CACHE: Dict[Tuple[Any, ...], Optional[Exports]] = {}
_TREES: Dict[Tuple[Any, ...], Optional[ast.Module]] = {}
_CYCLE = Exports({}, True)


def _exports_of(path: str, torch_exports: Tuple[Any, ...], depth: int, visiting: Tuple[str, ...], cuts: Optional[Set[str]] = None) -> Optional[Exports]:
    """``cuts`` collects the modules still being read that a star import led back to."""
    if path in visiting:
        # An import cycle: Python gives the star import the names the module has bound so
        # far, the very objects it binds them to itself, so it adds nothing to that module.
        # What the modules in between bind then depends on where the cycle was entered:
        # they are not cached.
        if cuts is not None:
            cuts.add(path)
        return _CYCLE
    if depth > bounds.STAR_IMPORT_LEVELS:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    # What a module exports is read down to a depth: results are kept per depth.
    key = (path, stat.st_mtime_ns, stat.st_size, torch_exports, depth)
    if key in _CACHE:
        return _CACHE[key]
    tree_key = (path, stat.st_mtime_ns, stat.st_size)
    if tree_key not in _TREES:
        if len(_TREES) > 1024:
            _TREES.clear()
        _TREES[tree_key] = _parse(path, stat.st_size)
    tree = _TREES[tree_key]
    inner: Set[str] = set()
    found = None if tree is None else _bindings(tree, path, dict(torch_exports), depth, (*visiting, path), inner)
    inner.discard(path)
    if inner:
        if cuts is not None:
            cuts.update(inner)
        return found
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[key] = found
    return found


def _parse(path: str, size: int) -> Optional[ast.Module]:
    if size > _MAX_BYTES:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    # 0.3-era helpers pass ``async=True`` on (``to_gpu(x, async=True)``): a keyword since
    # Python 3.7. What the module binds does not depend on that name; read it renamed.
    try:
        tokens = [
            (tokenize.NAME, "async_") if tok.type == tokenize.NAME and tok.string == "async" else (tok.type, tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        ]
        return ast.parse(tokenize.untokenize(tokens))
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError, IndentationError):
        return None


def _bindings(
    tree: ast.Module, path: str, torch_exports: Dict[str, FrozenSet[str]], depth: int, visiting: Tuple[str, ...], cuts: Set[str]
) -> Exports:
    names: Dict[str, Optional[str]] = {}
    bound_at: Dict[str, int] = {}
    opaque_at = -1  # the last star import whose names are not known
    declared: Optional[Tuple[str, ...]] = None
    step = 0

    def bind(name: str, target: Optional[str], conditional: bool) -> None:
        # A binding under ``if``/``try`` may or may not hold: its target is not known.
        names[name] = None if conditional and names.get(name, target) != target else target
        bound_at[name] = step

    def visit(body: Sequence[ast.stmt], conditional: bool) -> None:
        nonlocal opaque_at, declared, step
        for stmt in body:
            step += 1
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        bind(alias.asname, alias.name, conditional)
                    else:
                        head = alias.name.partition(".")[0]
                        bind(head, head, conditional)
            elif isinstance(stmt, ast.ImportFrom):
                source = "." * stmt.level + (stmt.module or "")
                if any(a.name == "*" for a in stmt.names):
                    star = _star(path, source, torch_exports, depth, visiting, cuts)
                    if star is None or not star.complete:
                        opaque_at = step
                    if star is not None:
                        for name, target in star.names.items():
                            bind(name, target, conditional)
                    continue
                for alias in stmt.names:
                    target = None if stmt.level else f"{stmt.module}.{alias.name}"
                    if stmt.level:
                        inner = _star(path, source, torch_exports, depth, visiting, cuts)
                        if inner is not None:
                            target = inner.names.get(alias.name)
                    bind(alias.asname or alias.name, target, conditional)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(stmt.name, None, conditional)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id == "__all__" and isinstance(stmt, ast.Assign):
                        declared = _literal_names(stmt.value)
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            bind(n.id, None, conditional)
            elif isinstance(stmt, (ast.If, ast.Try, ast.For, ast.While, ast.With)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, field, ()) or (), True)
                for handler in getattr(stmt, "handlers", ()) or ():
                    visit(handler.body, True)
                if isinstance(stmt, (ast.For, ast.With)):
                    for n in ast.walk(stmt.target if isinstance(stmt, ast.For) else ast.Tuple([i.optional_vars for i in stmt.items if i.optional_vars], ast.Load())):
                        if isinstance(n, ast.Name):
                            bind(n.id, None, True)

    visit(tree.body, False)
    # A name bound before a star import whose names are unknown may be rebound by it.
    known = {n: t for n, t in names.items() if bound_at[n] > opaque_at}
    if declared is not None:
        return Exports({n: known.get(n) for n in declared if n in known}, all(n in known for n in declared))
    return Exports({n: t for n, t in known.items() if not n.startswith("_")}, opaque_at < 0)


def _star(
    path: str, source: str, torch_exports: Dict[str, FrozenSet[str]], depth: int, visiting: Tuple[str, ...], cuts: Set[str]
) -> Optional[Exports]:
    if source in torch_exports:
        return Exports({n: f"{source}.{n}" for n in torch_exports[source]}, False)
    if source.partition(".")[0] in ("torch", "__future__"):
        return None
    found = module_file(path, source)
    if found is None:
        return None
    return _exports_of(os.path.realpath(found), _freeze(torch_exports), depth + 1, visiting, cuts)


def _literal_names(value: ast.expr) -> Optional[Tuple[str, ...]]:
    if isinstance(value, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
        return tuple(e.value for e in value.elts)  # type: ignore[attr-defined]
    return None
