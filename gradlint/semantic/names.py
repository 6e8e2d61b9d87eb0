"""Names: the file's one import index, qualified names, and what spells ``torch``.

``ImportIndex`` is built by one walk over the file's statements (imports are
statements, so no expression is visited). It answers the cheap questions first:
``refers_to`` rules out most nodes by their spelling before any scope analysis,
and a name that one module-level import binds and nothing else binds anywhere
resolves from the import alone. Otherwise qualified names come from the scope
analysis (``semantic.resolution``, on the file's ``Scopes``), only when asked.

``torch_ref_at(node)`` says which expression names the torch module at run time
where code is inserted at ``node``, following ``Scopes.visible``: it is the one
question a fix asks before it writes ``torch.no_grad()``.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Container, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple, Union, cast

import libcst as cst

from gradlint.fix import ImportSpec
from gradlint.semantic import star_exports
from gradlint.semantic.torch_api import STAR_EXPORTS
from gradlint.semantic.tree import Tree
from gradlint.traversal import children, get_full_name_for_node, node_types, target_names

if TYPE_CHECKING:
    from gradlint.semantic.resolution import Resolution

TorchRef = Tuple[str, Tuple[ImportSpec, ...]]
# (qualified name, how it is bound: "import", "builtin" or "local"), as
# ``semantic.resolution`` gives them.
QualifiedName = Tuple[str, str]
IMPORT = "import"
# The statement classes, for ``type(node) in``: the ancestors of a read pass no ABC check.
_STATEMENTS = node_types((cst.BaseSmallStatement, cst.BaseCompoundStatement))


@dataclass(frozen=True)
class ImportRecord:
    """One name one import statement binds."""

    name: str  # the name bound (``np``; ``os`` for ``import os.path``)
    target: Optional[str]  # what it is bound to (``numpy``; None: unclear, e.g. relative)
    package: str  # the top-level package it comes from ("" for relative imports)
    statement: cst.CSTNode  # the Import / ImportFrom
    alias: cst.ImportAlias
    module_level: bool
    aliased: bool  # bound by ``as``


@dataclass(frozen=True)
class ImportIndex:
    """What the file's import statements (anywhere in it) bind, and the names it defines."""

    records: Tuple[ImportRecord, ...]
    aliases: FrozenSet[str]  # the ``as`` names
    bound: FrozenSet[str]  # every name an import binds
    # bound name -> the top-level packages it is imported from (``F`` -> {"torch"})
    origins: Mapping[str, FrozenSet[str]]
    defined: FrozenSet[str]  # names of the file's functions and classes, anywhere in it
    # name -> what it is bound to, for names that only module-level imports bind, all
    # to the same thing (``F`` -> "torch.nn.functional"; ``torch`` -> "torch" after
    # ``import torch`` and ``import torch.nn``); none if there is an ``import *``
    sole: Mapping[str, str]
    star: bool  # some ``from x import *``
    # the modules of module-level ``from x import *`` (relative ones with their dots)
    star_modules: Tuple[str, ...] = ()
    # name -> what it may be bound to, for names that only module-level imports bind,
    # to more than one thing, each a ``from`` import or an ``import ... as`` (``Variable``
    # -> {"torch.autograd.Variable", "sympy.Symbol"}); none if there is an ``import *``
    several: Mapping[str, FrozenSet[str]] = field(default_factory=dict)

    def torch_names(self) -> List[str]:
        """Names some import binds to the torch module itself: ``torch`` first."""
        found = {r.name for r in self.records if r.target == "torch" and r.package == "torch"}
        return sorted(found, key=lambda n: (n != "torch", n))


def build_import_index(module: cst.Module) -> ImportIndex:
    records: List[ImportRecord] = []
    defined: List[str] = []
    star = False
    star_modules: List[str] = []
    stack: List[Any] = [(module, False)]
    while stack:
        node, inside = stack.pop()
        if type(node) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            for small in node.body:
                if type(small) is not cst.Import and type(small) is not cst.ImportFrom:
                    continue
                if isinstance(small.names, cst.ImportStar):
                    star = True
                    if not inside and isinstance(small, cst.ImportFrom):
                        dots = "." * len(small.relative)
                        star_modules.append(dots + (get_full_name_for_node(small.module) or "" if small.module else ""))
                    continue
                package = None
                module_name = None
                if isinstance(small, cst.ImportFrom):
                    package = "" if small.relative or small.module is None else (get_full_name_for_node(small.module) or "").partition(".")[0]
                    # Relative imports are qualified as the scope analysis spells them,
                    # dots first (``from ..m import C`` binds ``C`` to ``..m.C``), so that
                    # reading them needs no scope analysis either.
                    dots = "." * len(small.relative)
                    base = get_full_name_for_node(small.module) or "" if small.module is not None else ""
                    module_name = dots + base if dots else base or None
                for alias in small.names:
                    full = get_full_name_for_node(alias.name) or ""
                    if alias.asname is not None:
                        if not isinstance(alias.asname.name, cst.Name):
                            continue
                        name = alias.asname.name.value
                    else:
                        name = full.partition(".")[0]
                    if isinstance(small, cst.ImportFrom):
                        target = (module_name if module_name.endswith(".") else module_name + ".") + full if module_name else None
                    elif alias.asname is not None:
                        target = full
                    else:  # ``import a.b`` binds ``a`` to ``a``
                        target = full.partition(".")[0]
                    records.append(
                        ImportRecord(
                            name=name,
                            target=target,
                            package=full.partition(".")[0] if package is None else package,
                            statement=small,
                            alias=alias,
                            module_level=not inside,
                            aliased=alias.asname is not None,
                        )
                    )
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            defined.append(node.name.value)
            inside = True
        # Pushed in reverse, so that records come in source order.
        for attr in ("cases", "finalbody", "handlers", "orelse", "body"):
            child = getattr(node, attr, None)
            if isinstance(child, (list, tuple)):
                stack.extend((c, inside) for c in reversed(child))
            elif isinstance(child, cst.CSTNode):
                stack.append((child, inside))
    origins: Dict[str, Set[str]] = {}
    targets: Dict[str, Set[Optional[str]]] = {}
    nested = set()
    # ``import a.b`` binds ``a``, which the scope analysis reads through ``a.b`` first.
    dotted = set()
    for r in records:
        origins.setdefault(r.name, set()).add(r.package)
        if not r.module_level:
            nested.add(r.name)
        if isinstance(r.statement, cst.Import) and not r.aliased:
            dotted.add(r.name)
        # ``import a.b`` binds ``a`` to ``a`` like ``import a`` does: ``a.b.c`` reads
        # ``a.b.c`` through either, so files that import a package and some of its
        # submodules (``import torch``, ``import torch.utils.data``) still have one
        # answer, the name as spelled.
        targets.setdefault(r.name, set()).add(r.target)
    return ImportIndex(
        records=tuple(records),
        aliases=frozenset(r.name for r in records if r.aliased),
        bound=frozenset(origins),
        origins={name: frozenset(found) for name, found in origins.items()},
        defined=frozenset(defined),
        sole={}
        if star
        else {
            name: target
            for name, found in targets.items()
            if len(found) == 1 and name not in nested
            for target in found
            if target is not None
        },
        star=star,
        star_modules=tuple(star_modules),
        several={}
        if star
        else {
            name: frozenset(found)  # type: ignore[arg-type]
            for name, found in targets.items()
            if len(found) > 1 and None not in found and name not in nested and name not in dotted
        },
    )


class Names:
    """Name resolution for one file."""

    def __init__(self, module: cst.Module, source: str, tree: Tree, scopes: Callable[[], Any], path: Optional[str] = None) -> None:
        self.module = module
        self.path = path  # where the file is: star imports of the project's modules are read next to it
        self.source = source
        self.tree = tree
        self._scopes = scopes  # the file's ``Scopes``, built on first use
        self._index: Optional[ImportIndex] = None
        self._resolution: Optional["Resolution"] = None  # built only when a name needs it
        self._qualnames: Dict[cst.CSTNode, FrozenSet[QualifiedName]] = {}
        self._other_bindings: Optional[FrozenSet[str]] = None
        self._rebound_names: Dict[str, bool] = {}
        self._torch_ref_cache: Dict[int, Optional[TorchRef]] = {}
        self._imports_of: Dict[FrozenSet[str], Tuple[ImportSpec, ...]] = {}
        self._records_of: Optional[Dict[int, List[ImportRecord]]] = None
        self._stars: Optional[List[Tuple[int, cst.ImportFrom]]] = None
        self._places: Optional[Dict[int, int]] = None
        self._before_tables: Dict[str, Tuple[List[int], List[FrozenSet[str]]]] = {}
        # Of the import index, which never changes once built: asked per fix and per read.
        self._torch_names: Optional[List[str]] = None
        self._only_module_level: Dict[str, bool] = {}

    @property
    def index(self) -> ImportIndex:
        if self._index is None:
            self._index = build_import_index(self.module)
        return self._index

    # -- qualified names -----------------------------------------------------------

    @property
    def resolution(self) -> "Resolution":
        """Qualified names and the reads of imports, from the file's ``Scopes``."""
        if self._resolution is None:
            from gradlint.semantic.resolution import Resolution

            self._resolution = Resolution(self._scopes())
        return self._resolution

    def _qualified(self, node: cst.CSTNode) -> FrozenSet[QualifiedName]:
        found = self._qualnames.get(node)
        if found is None:
            found = self._qualnames[node] = self.resolution.qualified_names(node)
        return found

    def qualnames(self, node: cst.CSTNode) -> FrozenSet[str]:
        """Fully qualified names ``node`` (a Name or Attribute) may refer to, through imports."""
        imported = self._read_of_import(node)
        if imported is not None:
            return frozenset({imported})
        several = self._read_of_imports(node)
        if several is not None:
            return several
        found = frozenset(q for q, _ in self._qualified(node))
        if not found and self.index.star_modules:
            return self._star_imported(node)
        return found

    def _star_imported(self, node: cst.CSTNode) -> FrozenSet[str]:
        """What ``node`` names when its first name is bound nowhere in the file and a
        ``from M import *`` of a torch module that exports it brings it in
        (``Variable`` after ``from torch.autograd import *``). A star import of any
        other module may bring anything: nothing is known then."""
        full = get_full_name_for_node(node)
        if full is None or not self.is_read(node):
            return frozenset()
        root = full.partition(".")[0]
        index = self.index
        if root in index.bound or root in index.defined or root in self._bound_otherwise():
            return frozenset()
        for m in reversed(index.star_modules):  # the last star import that binds it wins
            bound, target = self._star_binds(m, root)
            if bound is False:
                continue
            return frozenset({target + full[len(root):]}) if target else frozenset()
        return frozenset()

    def _star_binds(self, module: str, name: str) -> Tuple[Optional[bool], Optional[str]]:
        """Whether ``from <module> import *`` binds ``name`` (None: may or may not), and
        the qualified name it binds it to where known: a torch module by what it exports,
        a module of the project by reading its file (``semantic.star_exports``)."""
        exports = STAR_EXPORTS.get(module)
        if exports is not None:
            return (True, f"{module}.{name}") if name in exports else (False, None)
        if module.partition(".")[0] == "torch":
            return None, None
        found = star_exports.exports(self.path or "", module, STAR_EXPORTS)
        if found is None:
            return None, None
        if name in found.names:
            return True, found.names[name]
        return (False, None) if found.complete else (None, None)

    def star_import_binds(self, stmt: cst.ImportFrom, name: str) -> Tuple[Optional[bool], Optional[str]]:
        """``_star_binds`` for the star import ``stmt``."""
        module = "." * len(stmt.relative) + (get_full_name_for_node(stmt.module) or "" if stmt.module else "")
        return self._star_binds(module, name)

    def _read_of_import(self, node: cst.CSTNode) -> Optional[str]:
        """The qualified name of ``node`` when it reads a name that module-level imports
        bind, all to the same thing, and nothing else binds anywhere (``F.relu`` after ``import
        torch.nn.functional as F``): then every scope sees that import, and scope
        analysis would say the same (a test compares them)."""
        full = get_full_name_for_node(node)
        if full is None:
            return None
        root = full.partition(".")[0]
        base = self.index.sole.get(root)
        if base is None or self._rebound(root) or not self.is_read(node):
            return None
        return base + full[len(root):]

    def _read_of_imports(self, node: cst.CSTNode) -> Optional[FrozenSet[str]]:
        """The qualified names of ``node`` when it reads a name that module-level imports
        bind to different things and nothing else binds anywhere (``Variable`` imported
        from torch in one place, from sympy in another), as scope analysis gives them (a
        test compares them): a function or lambda sees all of them, and so does a dotted
        name; a bare name read in the module's own statements, the imports before it.
        Elsewhere (a class body, a comprehension, a default value) None: scope analysis
        decides. A file made of many modules has such names, and scope analysis of a
        whole large file costs seconds."""
        full = get_full_name_for_node(node)
        if full is None:
            return None
        root = full.partition(".")[0]
        targets = self.index.several.get(root)
        if targets is None or self._rebound(root) or not self.is_read(node):
            return None
        if isinstance(node, cst.Name):
            module_level = self._module_level_read(node)
            if module_level is None:
                return None
            if module_level:
                targets = self._imported_before(root, node)
        rest = full[len(root):]
        return frozenset(t + rest for t in targets)

    def _imported_before(self, root: str, node: cst.CSTNode) -> FrozenSet[str]:
        """The targets of the imports of ``root`` whose statements end before ``node``
        starts. A file made of many modules reads such a name thousands of times, each
        among hundreds of imports: the imports are sorted by where they end once per
        name, and each read looks its place up among them."""
        tree = self.tree
        if not tree.complete:
            before = tree.ends_before
            return frozenset(r.target for r in self.index.records if r.name == root and r.target and before(r.statement, node))
        table = self._before_tables.get(root)
        if table is None:
            ends = sorted((tree.order(r.statement)[1], r.target) for r in self.index.records if r.name == root and r.target)
            # sets[i]: the targets of the first i imports by where they end.
            sets: List[FrozenSet[str]] = [frozenset()]
            for _, target in ends:
                sets.append(sets[-1] if target in sets[-1] else sets[-1] | {target})
            table = self._before_tables[root] = ([end for end, _ in ends], sets)
        # ends_before(statement, node): the statement's last index is below the node's first.
        return table[1][bisect.bisect_left(table[0], tree.order(node)[0])]

    def _module_level_read(self, node: cst.Name) -> Optional[bool]:
        """True for a name read in the module's own statements, False for one read in the
        body of a function, lambda or class (a scope of its own, which sees every binding
        of the module), None where that is not told here (a comprehension, a default
        value or decorator, in the module's own statements)."""
        tree = self.tree
        child: cst.CSTNode = node
        parent = tree.parent(node)
        told = True
        while parent is not None:
            if type(parent) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                if child is cast(Union[cst.FunctionDef, cst.Lambda, cst.ClassDef], parent).body:
                    return False
                told = False
            elif type(parent) in (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
                told = False
            child, parent = parent, tree.parent(parent)
        return True if told else None

    def _rebound(self, name: str) -> bool:
        """Whether something besides its import may bind ``name`` somewhere in the file.

        Every binding spells the name without a ``.`` after it (``np =``, ``as np``,
        ``def f(np)``, ``global np``), and so does the import itself. Mostly the name
        is only read as ``np.zeros``: one such spelling, the import, settles it
        without walking the tree."""
        found = self._rebound_names.get(name)
        if found is None:
            bare = re.compile(rf"(?<![\w.]){re.escape(name)}\b(?!\s*\.)")
            found = len(bare.findall(self.source)) > 1 and name in self._bound_otherwise()
            self._rebound_names[name] = found
        return found

    def refers_to(self, node: cst.CSTNode, names: FrozenSet[str]) -> bool:
        """Whether ``node`` may refer to one of the fully qualified ``names``.

        The same answer as ``bool(qualnames(node) & names)``, but most nodes are
        ruled out by their spelling alone: a qualified name always ends with the
        last component of the node's dotted name, unless the node is a bare name
        bound by ``import ... as``. So scope analysis runs only for files that
        spell one of the names."""
        full = get_full_name_for_node(node)
        if full is None:
            return False
        if full.rpartition(".")[2] not in _last_parts(names) and ("." in full or full not in self.index.aliases):
            return False
        if not self._may_be_in(full.partition(".")[0], _packages(names)):
            return False  # ``loss.backward`` with no import or binding of ``torch`` behind ``loss``
        return not names.isdisjoint(self.qualnames(node))

    def _may_be_in(self, root: str, packages: FrozenSet[str]) -> bool:
        """Whether a name whose first part is ``root`` may have a qualified name in one
        of the top-level ``packages``, by the reasoning of :meth:`qualnames_in`: only
        through an import binding ``root``, or a binding of the package's own name.
        Builtins are qualified without either, and a star import may bind anything."""
        index = self.index
        return (
            root in packages
            or "builtins" in packages
            or bool(index.star_modules)
            or not packages.isdisjoint(index.origins.get(root, ()))
            or not packages.isdisjoint(index.defined)
        )

    def is_call_to(self, node: cst.CSTNode, names: FrozenSet[str]) -> bool:
        return isinstance(node, cst.Call) and self.refers_to(node.func, names)

    def is_imported(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` (a Name or Attribute) refers to something bound by an import."""
        full = get_full_name_for_node(node)
        if full is None:
            return False
        root = full.partition(".")[0]
        index = self.index
        if root not in index.bound:
            return False  # no import binds its first name anywhere in the file
        if root in index.sole and self._read_of_import(node) is not None:
            return True
        if root not in self._bound_otherwise() and self._imported_at_module_level_only(root) and self.is_read(node):
            # Only module-level imports bind it, to whatever (``try: from a import X``
            # ``except ImportError: from b import X``): every scope sees one of them.
            return True
        return any(source == IMPORT for _, source in self._qualified(node))

    def _imported_at_module_level_only(self, root: str) -> bool:
        found = self._only_module_level.get(root)
        if found is None:
            found = self._only_module_level[root] = all(r.module_level for r in self.index.records if r.name == root)
        return found

    def is_read(self, node: cst.CSTNode) -> bool:
        """``node`` (a Name or Attribute) reads a variable: it is not an attribute's
        name, a keyword, or part of an import statement."""
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        parent = self.tree.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node or isinstance(parent, cst.Arg) and parent.keyword is node:
            return False
        while parent is not None and type(parent) not in _STATEMENTS:
            if type(parent) in (cst.ImportAlias, cst.AsName):
                return False
            parent = self.tree.parent(parent)
        return type(parent) not in (cst.Import, cst.ImportFrom)

    def import_read_after(self, name: str, skip: Container[int] = ()) -> Optional[cst.Name]:
        """A ``Name`` that reads the value the file's imports of ``name`` bind, in
        a module-level statement after the one holding that import (in any scope
        there), outside the nodes whose ``id()`` is in ``skip``; None if there is
        none, or if ``name`` is not bound by module-level imports of one same thing
        and nothing else anywhere (then no read can be vouched for).

        Such a read keeps the import in use whatever is done to the skipped nodes:
        every scope resolves ``name`` to the module's binding, and code after the
        import statement runs after it. (A read before it, at module level, would
        not see it.) Reads the scope analysis counts as well, in string annotations,
        are not looked for: a None is "not shown", not "unused"."""
        index = self.index
        if name not in index.sole or self._rebound(name):
            return None
        record = next(r for r in index.records if r.name == name)
        top: Optional[cst.CSTNode] = record.statement
        while top is not None and self.tree.parent(top) is not self.module:
            top = self.tree.parent(top)
        body = self.module.body
        after = next((i + 1 for i, stmt in enumerate(body) if stmt is top), len(body))
        stack: List[cst.CSTNode] = list(reversed(body[after:]))
        while stack:
            node = stack.pop()
            if id(node) in skip:
                continue
            if type(node) is cst.Name:
                if node.value == name and self.is_read(node) and not isinstance(self.tree.parent(node), _MATCH_KEYS):
                    return node
                continue
            stack.extend(reversed(children(node)))
        return None

    def _bound_otherwise(self) -> FrozenSet[str]:
        if self._other_bindings is None:
            self._other_bindings = _non_import_bindings(self.tree)
        return self._other_bindings

    def qualnames_in(self, node: cst.CSTNode, packages: FrozenSet[str]) -> FrozenSet[str]:
        """``qualnames(node)``, without the scope analysis when none of them can lie in
        one of the top-level ``packages`` (``torch``): then the names outside them
        may be missing, so ask only about names in them (``names & TORCH_THINGS``).

        A qualified name starts with a package's name only through an import of
        that package binding the node's first name, or a binding of the package's
        name itself (``torch = None``; the locals of ``def torch():``)."""
        full = get_full_name_for_node(node)
        if full is None:
            return frozenset()
        root = full.partition(".")[0]
        index = self.index
        if root in packages or not packages.isdisjoint(index.origins.get(root, ())) or not packages.isdisjoint(index.defined):
            return self.qualnames(node)
        if index.star_modules and root not in index.bound:
            # A name no import binds may come from ``from models import *`` whose module
            # imports ``torch.nn as nn``; ``_star_imported`` answers without scope analysis
            # and only where nothing else in the file binds the name.
            return frozenset(q for q in self._star_imported(node) if q.partition(".")[0] in packages)
        return frozenset()

    # -- torch at run time ---------------------------------------------------------------

    def torch_ref_at(self, node: cst.CSTNode) -> Optional[TorchRef]:
        """How code inserted at ``node`` can spell the torch module, and the import it
        needs for that; None where no name can be vouched for.

        ``node`` is a statement the code goes before or around, or a ``def`` whose
        decorators it joins (decorators run where the ``def`` stands, when it runs:
        a class attribute ``torch`` before a method shadows the module there, an
        ``import torch`` after the ``def`` has not run yet). A name qualifies when
        every binding that may reach that point at run time is an import of the
        torch module (``import torch``, ``import torch.nn``, ``import torch as
        th``) and none is missing on any path. Failing that, ``torch`` qualifies
        when the module binds no such name and nothing binds it where the code
        runs: the fix then adds ``import torch`` at the top of the module."""
        key = id(node)
        if key in self._torch_ref_cache:
            return self._torch_ref_cache[key]
        found: Optional[TorchRef] = None
        scopes = self._scopes()
        if self._torch_names is None:
            self._torch_names = self.index.torch_names()
        candidates = self._torch_names
        for name in candidates:
            seen = scopes.visible(name, node)
            if (
                seen.bindings
                and not seen.unbound
                and all(self._imports_torch(b) for b in seen.bindings)
                and not self._star_may_rebind(name, seen.bindings)
            ):
                found = (name, ())
                break
        if found is None and "torch" not in scopes.root.bindings:
            # ``import torch`` added at the top binds it in the module, before anything runs.
            seen = scopes.visible("torch", node)
            if not seen.bindings:
                found = ("torch", (ImportSpec("torch"),))
        self._torch_ref_cache[key] = found
        return found

    def _star_may_rebind(self, name: str, imports: Any) -> bool:
        """Whether a module-level star import after one of ``imports`` may bind ``name``
        to something other than the torch module (scopes do not count star imports as
        bindings; one before every import of ``name`` is overridden by them)."""
        if self._stars is None:
            # Once per file: asked for every fix that adds a guard.
            self._stars = []
            self._places = {}
            for i, stmt in enumerate(self.module.body):
                self._places[id(stmt)] = i
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        self._places[id(small)] = i
                        if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
                            self._stars.append((i, small))
        stars = self._stars
        if not stars:
            return False
        assert self._places is not None
        # The module statement that is or holds one of the imports, the first of them.
        first = min((self._places[id(b.node)] for b in imports if id(b.node) in self._places), default=None)
        for index, star in stars:
            if first is not None and index < first:
                continue
            bound, target = self.star_import_binds(star, name)
            if bound is False or (bound and target == "torch"):
                continue
            return True
        return False

    def _imports_torch(self, binding: Any) -> bool:
        if binding.form != "import":
            return False
        if self._records_of is None:
            # by statement: a file made of many modules has hundreds of ``import torch``
            self._records_of = {}
            for r in self.index.records:
                self._records_of.setdefault(id(r.statement), []).append(r)
        for r in self._records_of.get(id(binding.node), ()):
            if r.name == binding.name.value:
                return r.target == "torch" and r.package == "torch"
        return False

    def imports_of(self, names: FrozenSet[str]) -> Tuple[ImportSpec, ...]:
        """The module-level imports through which code can reach one of ``names``:
        ``from X import Y [as Z]`` binding one of them or a module above one
        (``from torch import autograd``), and ``import X.Y as Z`` of such a module.
        Fixes list them for removal, which happens only where nothing uses them.

        Every fix of a legacy wrapper asks this of the same names, and the answer
        walks every import of the file: computed once per names, and the same tuple
        each time (``fixes.apply_fixes`` reads each such tuple of a round's fixes once)."""
        found = self._imports_of.get(names)
        if found is None:
            found = self._imports_of[names] = tuple(self._find_imports_of(names))
        return found

    def _find_imports_of(self, names: FrozenSet[str]) -> List[ImportSpec]:
        def reaches(qualname: str) -> bool:
            return qualname in names or any(n.startswith(qualname + ".") for n in names)

        found: List[ImportSpec] = []
        for r in self.index.records:
            holder = self.tree.parent(r.statement)
            if not r.module_level or holder is None:
                continue
            if not isinstance(self.tree.parent(holder), cst.Module):
                continue  # inside an ``if``/``try`` at module level: not a plain import
            stmt = r.statement
            if isinstance(stmt, cst.Import):
                # ``import torch.autograd`` binds ``torch``: never a candidate.
                if r.aliased and r.target is not None and reaches(r.target):
                    found.append(ImportSpec(r.target, None, r.name))
            elif isinstance(stmt, cst.ImportFrom) and r.target is not None and reaches(r.target):
                module = r.target.rpartition(".")[0]
                obj = r.target.rpartition(".")[2]
                found.append(ImportSpec(module, obj, r.name if r.aliased else None))
        return found


@functools.lru_cache(maxsize=None)
def _last_parts(names: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(n.rpartition(".")[2] for n in names)


@functools.lru_cache(maxsize=None)
def _packages(names: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(n.partition(".")[0] for n in names)


def _non_import_bindings(tree: Tree) -> FrozenSet[str]:
    """Every name that something other than an import statement binds (or declares
    ``global``/``nonlocal``, or deletes) anywhere in the file, in any scope."""
    found: List[str] = []

    def targets(expr: cst.CSTNode) -> None:
        found.extend(name.value for name in target_names(expr))

    # The node classes differ but share the attribute each loop reads: read through Any.
    nodes_of: Callable[[type], Iterable[Any]] = tree.nodes_of
    for node in nodes_of(cst.Assign):
        for t in node.targets:
            targets(t.target)
    kind: type
    for kind in (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del):
        for node in nodes_of(kind):
            targets(node.target)
    for node in nodes_of(cst.WithItem):
        if node.asname is not None:
            targets(node.asname.name)
    for kind in (cst.ExceptHandler, cst.ExceptStarHandler):
        for node in nodes_of(kind):
            if node.name is not None:
                targets(node.name.name)
    for kind in (cst.Param, cst.FunctionDef, cst.ClassDef):
        found.extend(node.name.value for node in nodes_of(kind))
    for kind in (cst.Global, cst.Nonlocal):
        for node in nodes_of(kind):
            found.extend(n.name.value for n in node.names)
    for kind in _MATCH_BINDERS:
        for node in nodes_of(kind):
            for attr in ("name", "rest"):
                value = getattr(node, attr, None)
                if isinstance(value, cst.Name):
                    found.append(value.value)
    return frozenset(found)


_MATCH_BINDERS = tuple(getattr(cst, name) for name in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(cst, name))


# A class pattern's keyword (``case P(x=1)``) names an attribute, not a variable.
_MATCH_KEYS = tuple(getattr(cst, name) for name in ("MatchKeywordElement",) if hasattr(cst, name))
