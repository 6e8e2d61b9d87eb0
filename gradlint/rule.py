"""What a rule sees: the :class:`Rule` base class and the per-file :class:`FileContext`.

A rule is a class with LibCST-style ``visit_<Node>`` / ``leave_<Node>`` methods.
All enabled rules run in one traversal of the tree (see ``engine``). Metadata
(positions, parents, qualified names) is computed lazily, once per file, the
first time any rule asks for it, so a file whose rules need no scope analysis
never pays for it. Each LibCST metadata provider costs one or more extra full
traversals (a parent map costs three times the traversal itself, scopes more
than five), so the cheap answers come first:

- parents of the nodes visited so far are recorded by the engine's traversal;
  when a rule asks about a node not visited yet (a visitor looking at its
  node's operands), one plain walk records every parent of the file (LibCST's
  ``ParentNodeProvider`` would rebuild the tree three times);
- ``refers_to`` rules out most nodes by their spelling before any scope
  analysis; qualified names come from ``ScopeProvider`` directly, per node,
  without ``QualifiedNameProvider``'s extra pass over every node.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    CodePosition,
    CodeRange,
    MetadataWrapper,
    QualifiedName,
    QualifiedNameSource,
    ScopeProvider,
)

from gradlint import catalog
from gradlint.fixes import Edit, Fix, ImportSpec, NewNode
from gradlint.options import RuleOptions  # re-exported: rules and tests import it from here
from gradlint.results import Finding  # re-exported: rules and tests import it from here
from gradlint.traversal import positions, record_parents, scope_metadata, target_names, walk

_NOT_VISITED = object()


class FileContext:
    """One parsed file and the lazily computed facts rules share about it."""

    def __init__(self, path: str, source: str, module: cst.Module, options: RuleOptions = RuleOptions()) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.options = options
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self._metadata: Dict[type, Mapping[cst.CSTNode, Any]] = {}
        self._semantic: Any = None
        # Filled by the engine's walk: id() of every node visited so far -> its
        # parent (ids, since CSTNode.__hash__ is a Python call; the tree keeps
        # the nodes, so their ids stay theirs).
        self.parents: Dict[int, Optional[cst.CSTNode]] = {}
        self._all_parents = False
        self._qualnames: Dict[cst.CSTNode, FrozenSet[QualifiedName]] = {}
        self._import_names: Optional[_Imports] = None
        self._other_bindings: Optional[FrozenSet[str]] = None
        self._rebound_names: Dict[str, bool] = {}
        self._positions: Optional[Dict[int, Tuple[int, int, int, int]]] = None
        # Filled by the engine's walk too: id() of each node visited -> its index in
        # the walk; of each node left -> the last index under it (see ``order``).
        self.starts: Dict[int, int] = {}
        self.ends: Dict[int, int] = {}

    def metadata(self, provider: type) -> Mapping[cst.CSTNode, Any]:
        found = self._metadata.get(provider)
        if found is None:
            if provider is ScopeProvider:
                try:
                    found = scope_metadata(self.module)
                except (AttributeError, TypeError, KeyError, ImportError):  # LibCST changed inside
                    found = self.wrapper.resolve(provider)
            else:
                found = self.wrapper.resolve(provider)
            self._metadata[provider] = found
        return found

    def position(self, node: cst.CSTNode) -> CodeRange:
        line, column, end_line, end_column = self._span(node)
        return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))

    def span(self, node: cst.CSTNode) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        line, column, end_line, end_column = self._span(node)
        return (line, column), (end_line, end_column)

    def _span(self, node: cst.CSTNode) -> Tuple[int, int, int, int]:
        if self._positions is None:
            self._positions = positions(self.module)
        return self._positions[id(node)]

    def order(self, node: cst.CSTNode) -> Tuple[int, int]:
        """(``node``'s index, the largest index of a node under it) in visiting order:
        ``order(a)[1] < order(b)[0]`` when ``a`` ends before ``b`` starts. Cheaper than
        ``position`` for files that turn out to need no position at all."""
        start = self.starts.get(id(node))
        if start is None and not self._all_parents:
            self._record_parents()
            start = self.starts.get(id(node))
        if start is None:
            raise KeyError(f"{type(node).__name__} node is not in this file's tree")
        # A node the walk is inside of has not ended yet: it ends after every node visited so far.
        return start, self.ends.get(id(node), 1 << 62)

    def ends_before(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """Whether ``first`` ends before ``second`` starts, in the source."""
        if not self._all_parents and id(second) in self.starts and id(first) not in self.ends:
            # ``first`` is not walked yet (so it comes after every node walked so
            # far, ``second`` too), or the walk is inside it: either way, no.
            return False
        return self.order(first)[1] < self.order(second)[0]

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        found = self.parents.get(id(node), _NOT_VISITED)
        if found is _NOT_VISITED:
            if self._all_parents:
                return None  # not in this tree
            self._record_parents()
            found = self.parents.get(id(node))
        return found  # type: ignore[return-value]

    def _record_parents(self) -> None:
        self._all_parents = True
        self.parents[id(self.module)] = None
        record_parents(self.module, self.parents, self.starts, self.ends)

    def _qualified(self, node: cst.CSTNode) -> FrozenSet[QualifiedName]:
        found = self._qualnames.get(node)
        if found is None:
            scope = self.metadata(ScopeProvider).get(node)
            found = frozenset(scope.get_qualified_names_for(node)) if scope is not None else frozenset()
            self._qualnames[node] = found
        return found

    def qualnames(self, node: cst.CSTNode) -> FrozenSet[str]:
        """Fully qualified names ``node`` (a Name or Attribute) may refer to, through imports."""
        imported = self._read_of_import(node)
        if imported is not None:
            return frozenset({imported})
        return frozenset(q.name for q in self._qualified(node))

    def _read_of_import(self, node: cst.CSTNode) -> Optional[str]:
        """The qualified name of ``node`` when it reads a name that one module-level
        import binds and nothing else binds anywhere (``F.relu`` after ``import
        torch.nn.functional as F``): then every scope sees that import, and scope
        analysis, which costs more than parsing the file, would say the same (a test
        compares them)."""
        full = get_full_name_for_node(node)
        if full is None:
            return None
        root = full.partition(".")[0]
        base = self._imports().sole.get(root)
        if base is None or self._rebound(root) or not self._is_read(node):
            return None
        return base + full[len(root):]

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
        last component of the node's dotted name (``x.y.Variable`` ->
        ``...Variable``), unless the node is a bare name bound by ``import ...
        as`` (``V`` in ``from torch.autograd import Variable as V``). So scope
        analysis runs only for files that spell one of the names.
        """
        full = get_full_name_for_node(node)
        if full is None:
            return False
        if full.rpartition(".")[2] not in _last_parts(names) and ("." in full or full not in self._imports().aliases):
            return False
        return not names.isdisjoint(self.qualnames(node))

    def is_imported(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` (a Name or Attribute) refers to something bound by an import."""
        full = get_full_name_for_node(node)
        if full is None:
            return False
        root = full.partition(".")[0]
        imports = self._imports()
        if root not in imports.bound:
            return False  # no import binds its first name anywhere in the file
        if root in imports.sole and self._read_of_import(node) is not None:
            return True
        return any(q.source is QualifiedNameSource.IMPORT for q in self._qualified(node))

    def _is_read(self, node: cst.CSTNode) -> bool:
        """``node`` (a Name or Attribute) reads a variable: it is not an attribute's
        name, a keyword, or part of an import statement."""
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        parent = self.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node or isinstance(parent, cst.Arg) and parent.keyword is node:
            return False
        while parent is not None and not isinstance(parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            if isinstance(parent, (cst.ImportAlias, cst.AsName)):
                return False
            parent = self.parent(parent)
        return not isinstance(parent, (cst.Import, cst.ImportFrom))

    def _bound_otherwise(self) -> FrozenSet[str]:
        if self._other_bindings is None:
            self._other_bindings = _non_import_bindings(self.module)
        return self._other_bindings

    def qualnames_in(self, node: cst.CSTNode, packages: FrozenSet[str]) -> FrozenSet[str]:
        """``qualnames(node)``, without the scope analysis when none of them can lie in
        one of the top-level ``packages`` (``torch``): then the names outside them
        may be missing, so ask only about names in them (``names & TORCH_THINGS``).

        Scope analysis costs more than parsing the file; most callees
        (``model(x)``, ``self.fc(h)``, ``np.mean(v)``) are settled by the imports
        alone. A qualified name starts with a package's name only through an
        import of that package binding the node's first name, or a binding of
        the package's name itself (``torch = None``; the locals of ``def
        torch():`` are ``torch.<locals>.x``).
        """
        full = get_full_name_for_node(node)
        if full is None:
            return frozenset()
        root = full.partition(".")[0]
        imports = self._imports()
        if root in packages or not packages.isdisjoint(imports.origins.get(root, ())) or not packages.isdisjoint(imports.defined):
            return self.qualnames(node)
        return frozenset()

    def _imports(self) -> "_Imports":
        if self._import_names is None:
            self._import_names = _import_names(self.module)
        return self._import_names

    @property
    def semantic(self) -> Any:
        """The torch-aware model shared by rules (see ``gradlint.semantic``)."""
        if self._semantic is None:
            from gradlint.semantic import Semantic

            self._semantic = Semantic(self)
        return self._semantic

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)


class Rule:
    """Base class of every rule; subclasses live one per module in ``gradlint/rules``.

    ``code`` ties the class to its catalog entry. Two prefilters, both necessary
    conditions for the rule to fire, decide whether it runs on a file at all;
    the engine does not parse a file on which no enabled rule passes both:

    - ``triggers``: substrings of which the file must contain at least one
      (``in``, a fraction of a microsecond per kilobyte);
    - ``gates`` (optional): compiled regular expressions that must each match
      somewhere in the file, tried only when a trigger is present. They say
      what the trigger cannot: ``.data`` *followed by an in-place edit*, a loop
      *and* an accumulation (building blocks in ``gradlint.rules._gates``).

    ``tests/test_prefilter.py`` runs every rule with and without them on every
    fixture and catalog example, and requires the same findings.
    """

    code: ClassVar[str]
    triggers: ClassVar[Tuple[str, ...]]
    gates: ClassVar[Tuple["re.Pattern[str]", ...]] = ()
    _registry: ClassVar[Dict[str, Type["Rule"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is None:
            return
        if code in Rule._registry and Rule._registry[code] is not cls:
            raise TypeError(f"rule code {code} is defined twice")
        if not cls.__dict__.get("triggers"):
            raise TypeError(f"rule {code} must declare its trigger substrings")
        if not (isinstance(cls.gates, tuple) and all(isinstance(g, re.Pattern) for g in cls.gates)):
            raise TypeError(f"rule {code}: gates must be a tuple of compiled regular expressions")
        Rule._registry[code] = cls

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.doc = catalog.load()[self.code]
        self.findings: List[Finding] = []

    # -- reporting --------------------------------------------------------

    def report(self, node: cst.CSTNode, *, fix: Optional[Fix] = None, **fields: Any) -> None:
        start, end = self.ctx.span(node)
        self.findings.append(
            Finding(
                code=self.code,
                message=self.doc.format_message(**fields),
                start=start,
                end=end,
                fix=fix,
                node=node,
            )
        )

    # -- building fixes ---------------------------------------------------

    def fix(
        self,
        *edits: Edit,
        title: Optional[str] = None,
        applicability: Optional[str] = None,
        add_imports: Sequence[ImportSpec] = (),
        remove_imports: Sequence[ImportSpec] = (),
        **title_fields: Any,
    ) -> Fix:
        """A fix whose safety and title default to the catalog entry's."""
        safety = applicability or self.doc.fix
        if safety not in ("safe", "unsafe"):  # "none", or "varies" without a per-finding choice
            raise ValueError(f"{self.code}: catalog says fix = {self.doc.fix!r}, yet the rule builds a fix")
        return Fix(
            applicability=safety,
            title=title or self.doc.fix_title.format(**title_fields),
            edits=tuple(edits),
            add_imports=tuple(add_imports),
            remove_imports=tuple(remove_imports),
        )

    def replace(self, node: cst.CSTNode, new: NewNode, key: Any = None) -> Edit:
        return Edit("replace", node, self.ctx.span(node), new=new, key=key)

    def transform(self, node: cst.CSTNode, fn: Any, key: Any = None) -> Edit:
        return Edit("transform", node, self.ctx.span(node), fn=fn, key=key)

    def wrap(self, first: cst.BaseStatement, last: cst.BaseStatement, fn: Any, key: Any = None) -> Edit:
        span = (self.ctx.span(first)[0], self.ctx.span(last)[1])
        return Edit("wrap", first, span, fn=fn, last=last, key=key)


@functools.lru_cache(maxsize=None)
def _last_parts(names: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(n.rpartition(".")[2] for n in names)


@dataclass(frozen=True)
class _Imports:
    """What the file's import statements (anywhere in it) bind, and the names it defines."""

    aliases: FrozenSet[str]  # the ``as`` names
    bound: FrozenSet[str]  # every name an import binds (``np``; ``os`` for ``import os.path``)
    # bound name -> the top-level packages it is imported from (``F`` -> {"torch"}; "" for relative imports)
    origins: Mapping[str, FrozenSet[str]]
    defined: FrozenSet[str]  # names of the file's functions and classes, anywhere in it
    # name -> what it is bound to, for names that one module-level import binds and no
    # other import does (``F`` -> "torch.nn.functional"); none if there is an ``import *``
    sole: Mapping[str, str]


def _import_names(module: cst.Module) -> _Imports:
    """Imports are statements, so only statements are walked."""
    aliases: List[str] = []
    origins: Dict[str, set] = {}
    defined: List[str] = []
    nested: List[str] = []  # bound by imports inside functions and classes, or anything if ``import *``
    targets: Dict[str, List[Optional[str]]] = {}  # bound name -> what each import binds it to (None: unclear)
    stack: List[Any] = [(module, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if not isinstance(small, (cst.Import, cst.ImportFrom)):
                    continue
                if isinstance(small.names, cst.ImportStar):
                    nested.append("*")
                    continue
                package = None
                if isinstance(small, cst.ImportFrom):
                    package = "" if small.relative else (get_full_name_for_node(small.module) or "").partition(".")[0]
                for alias in small.names:
                    full = get_full_name_for_node(alias.name) or ""
                    if alias.asname is not None:
                        if not isinstance(alias.asname.name, cst.Name):
                            continue
                        name = alias.asname.name.value
                        aliases.append(name)
                    else:
                        name = full.partition(".")[0]
                    origins.setdefault(name, set()).add(full.partition(".")[0] if package is None else package)
                    if inside:
                        nested.append(name)
                    if isinstance(small, cst.ImportFrom):
                        module_name = None if small.relative or small.module is None else get_full_name_for_node(small.module)
                        target = f"{module_name}.{full}" if module_name else None
                    else:  # ``import a.b`` binds ``a`` to ``a``, and makes ``a.b`` mean the submodule
                        target = full if alias.asname is not None or "." not in full else None
                    targets.setdefault(name, []).append(target)
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            defined.append(node.name.value)
            inside = True
        for attr in ("body", "orelse", "handlers", "finalbody", "cases"):
            child = getattr(node, attr, None)
            if isinstance(child, (list, tuple)):
                stack.extend((c, inside) for c in child)
            elif isinstance(child, cst.CSTNode):
                stack.append((child, inside))
    return _Imports(
        aliases=frozenset(aliases),
        bound=frozenset(origins),
        origins={name: frozenset(found) for name, found in origins.items()},
        defined=frozenset(defined),
        sole={}
        if "*" in nested
        else {
            name: found[0]
            for name, found in targets.items()
            if len(found) == 1 and found[0] is not None and name not in nested
        },
    )


def _non_import_bindings(module: cst.Module) -> FrozenSet[str]:
    """Every name that something other than an import statement binds (or declares
    ``global``/``nonlocal``, or deletes) anywhere in the file, in any scope."""
    found: List[str] = []

    def targets(expr: cst.CSTNode) -> None:
        found.extend(name.value for name in target_names(expr))

    def enter(node: cst.CSTNode, parent: Optional[cst.CSTNode]) -> None:
        kind = type(node)
        if kind is cst.Assign:
            for t in node.targets:  # type: ignore[attr-defined]
                targets(t.target)
        elif kind in (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del):
            targets(node.target)  # type: ignore[attr-defined]
        elif kind is cst.WithItem or kind is cst.ExceptHandler or kind is cst.ExceptStarHandler:
            asname = node.asname if kind is cst.WithItem else node.name  # type: ignore[attr-defined]
            if asname is not None:
                targets(asname.name)
        elif kind in (cst.Param, cst.FunctionDef, cst.ClassDef):
            found.append(node.name.value)  # type: ignore[attr-defined]
        elif kind is cst.Global or kind is cst.Nonlocal:
            found.extend(n.name.value for n in node.names)  # type: ignore[attr-defined]
        elif kind in _MATCH_BINDERS:
            for attr in ("name", "rest"):
                value = getattr(node, attr, None)
                if isinstance(value, cst.Name):
                    found.append(value.value)

    walk(module, enter, lambda node: None)
    return frozenset(found)


_MATCH_BINDERS = tuple(
    getattr(cst, name) for name in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(cst, name)
)
