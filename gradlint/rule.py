"""What a rule sees: the :class:`Rule` base class and the per-file :class:`FileContext`.

A rule is a class with LibCST-style ``visit_<Node>`` / ``leave_<Node>`` methods.
All enabled rules run in one traversal of the tree (see ``engine``). Metadata
(positions, parents, qualified names) is computed lazily, once per file, the
first time any rule asks for it, so a file whose rules need no scope analysis
never pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst.metadata import (
    CodeRange,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
)

from gradlint import catalog
from gradlint.fixes import Edit, Fix, ImportSpec, NewNode


@dataclass(frozen=True)
class RuleOptions:
    """Settings that change what rules report or how they fix (from the config)."""

    # The guard that fixes insert: "no_grad" or "inference_mode".
    fix_grad_guard: str = "no_grad"


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

    def metadata(self, provider: type) -> Mapping[cst.CSTNode, Any]:
        found = self._metadata.get(provider)
        if found is None:
            found = self._metadata[provider] = self.wrapper.resolve(provider)
        return found

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self.metadata(PositionProvider)[node]

    def span(self, node: cst.CSTNode) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        rng = self.position(node)
        return (rng.start.line, rng.start.column), (rng.end.line, rng.end.column)

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.metadata(ParentNodeProvider).get(node)

    def qualnames(self, node: cst.CSTNode) -> FrozenSet[str]:
        """Fully qualified names ``node`` (a Name or Attribute) may refer to, through imports."""
        value = self.metadata(QualifiedNameProvider).get(node)
        if value is None:
            return frozenset()
        if callable(value):  # LibCST computes these lazily
            value = value()
        return frozenset(q.name for q in value)

    def is_imported(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` (a Name or Attribute) refers to something bound by an import."""
        value = self.metadata(QualifiedNameProvider).get(node)
        if value is None:
            return False
        if callable(value):
            value = value()
        return any(q.source is QualifiedNameSource.IMPORT for q in value)

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
        rng = self.ctx.position(node)
        self.findings.append(
            Finding(
                code=self.code,
                message=self.doc.format_message(**fields),
                start=(rng.start.line, rng.start.column),
                end=(rng.end.line, rng.end.column),
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
