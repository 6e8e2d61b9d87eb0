"""What a rule sees: the :class:`Rule` base class and the per-file :class:`FileContext`.

A rule is a class with LibCST-style ``visit_<Node>`` / ``leave_<Node>`` methods.
All enabled rules run in one traversal of the tree (see ``engine``). Metadata
(positions, parents, qualified names) is computed lazily, once per file, the
first time any rule asks for it, so a file whose rules need no scope analysis
never pays for it. Each LibCST metadata provider costs one or more extra full
traversals (a parent map costs three times the traversal itself, scopes more
than five), so the cheap answers come first:

- parents of the nodes visited so far are recorded by the engine's traversal;
  ``ParentNodeProvider`` runs only if a rule asks about a node not visited yet;
- ``refers_to`` rules out most nodes by their spelling before any scope
  analysis; qualified names come from ``ScopeProvider`` directly, per node,
  without ``QualifiedNameProvider``'s extra pass over every node.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    CodePosition,
    CodeRange,
    MetadataWrapper,
    ParentNodeProvider,
    QualifiedName,
    QualifiedNameSource,
    ScopeProvider,
)

from gradlint import catalog
from gradlint.fixes import Edit, Fix, ImportSpec, NewNode
from gradlint.options import RuleOptions  # re-exported: rules and tests import it from here
from gradlint.traversal import positions, scope_metadata

_NOT_VISITED = object()


@dataclass
class Finding:
    code: str
    message: str
    # 1-based lines, 0-based columns, as LibCST reports them; reporters convert.
    start: Tuple[int, int]
    end: Tuple[int, int]
    fix: Optional[Fix] = None


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
        self._qualnames: Dict[cst.CSTNode, FrozenSet[QualifiedName]] = {}
        self._import_names: Optional[Tuple[FrozenSet[str], FrozenSet[str]]] = None
        self._positions: Optional[Dict[int, Tuple[int, int, int, int]]] = None

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

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        found = self.parents.get(id(node), _NOT_VISITED)
        if found is _NOT_VISITED:
            return self.metadata(ParentNodeProvider).get(node)
        return found  # type: ignore[return-value]

    def _qualified(self, node: cst.CSTNode) -> FrozenSet[QualifiedName]:
        found = self._qualnames.get(node)
        if found is None:
            scope = self.metadata(ScopeProvider).get(node)
            found = frozenset(scope.get_qualified_names_for(node)) if scope is not None else frozenset()
            self._qualnames[node] = found
        return found

    def qualnames(self, node: cst.CSTNode) -> FrozenSet[str]:
        """Fully qualified names ``node`` (a Name or Attribute) may refer to, through imports."""
        return frozenset(q.name for q in self._qualified(node))

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
        if full.rpartition(".")[2] not in _last_parts(names) and ("." in full or full not in self._imports()[0]):
            return False
        return not names.isdisjoint(self.qualnames(node))

    def is_imported(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` (a Name or Attribute) refers to something bound by an import."""
        full = get_full_name_for_node(node)
        if full is None or full.partition(".")[0] not in self._imports()[1]:
            return False  # no import binds its first name anywhere in the file
        return any(q.source is QualifiedNameSource.IMPORT for q in self._qualified(node))

    def _imports(self) -> Tuple[FrozenSet[str], FrozenSet[str]]:
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

    ``code`` ties the class to its catalog entry. ``triggers`` are substrings of
    which a file must contain at least one for the rule to be able to fire: the
    engine skips parsing files that contain none of the enabled rules' triggers.
    """

    code: ClassVar[str]
    triggers: ClassVar[Tuple[str, ...]]
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


def _import_names(module: cst.Module) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """(the ``as`` names, the first component of every name) that import statements
    bind anywhere in the file. Imports are statements, so only statements are walked."""
    aliases: List[str] = []
    bound: List[str] = []
    stack: List[Any] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if not isinstance(small, (cst.Import, cst.ImportFrom)) or isinstance(small.names, cst.ImportStar):
                    continue
                for alias in small.names:
                    if alias.asname is not None:
                        if isinstance(alias.asname.name, cst.Name):
                            aliases.append(alias.asname.name.value)
                            bound.append(alias.asname.name.value)
                    else:
                        bound.append((get_full_name_for_node(alias.name) or "").partition(".")[0])
            continue
        for attr in ("body", "orelse", "handlers", "finalbody", "cases"):
            child = getattr(node, attr, None)
            if isinstance(child, (list, tuple)):
                stack.extend(child)
            elif isinstance(child, cst.CSTNode):
                stack.append(child)
    return frozenset(aliases), frozenset(bound)
