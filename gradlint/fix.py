"""What a fix is: edits on nodes of the original tree, and the imports they need.

Plain data, apart from ``gradlint.fixes`` (which applies and renders fixes), so
that a finding (``gradlint.results``) can name its fix without depending on the
code that applies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Optional, Tuple, Union

if TYPE_CHECKING:
    import libcst as cst

# (line, column) pairs as LibCST reports them: 1-based lines, 0-based columns.
Span = Tuple[Tuple[int, int], Tuple[int, int]]
NewNode = Union["cst.CSTNode", "cst.RemovalSentinel", "cst.FlattenSentinel"]


@dataclass(frozen=True)
class ImportSpec:
    """``import module`` (obj None) or ``from module import obj [as asname]``."""

    module: str
    obj: Optional[str] = None
    asname: Optional[str] = None


@dataclass(frozen=True, eq=False)
class Edit:
    """One change to the original tree.

    ``replace`` swaps ``target`` for ``new`` (edits inside ``target`` are lost,
    so they conflict with it); ``transform`` calls ``fn`` on the already
    updated ``target`` (edits inside compose with it); ``wrap`` replaces the
    statements ``target`` .. ``last`` of one block with ``fn(updated_statements)``.
    Two edits with the same non-None ``key`` are the same edit and applied once.
    """

    kind: str
    target: cst.CSTNode
    # Where it applies, or what gives that when first asked (``span``): a rule's edit
    # asks for positions, which a fix thrown away (``LintSettings.fixable_only``)
    # then never needs.
    where: Union[Span, Callable[[], Span]]
    new: Optional[NewNode] = None
    fn: Optional[Callable[..., Any]] = None
    last: Optional[cst.CSTNode] = None
    key: Optional[Hashable] = None

    @property
    def span(self) -> Span:
        where = self.where
        if callable(where):
            where = where()
            object.__setattr__(self, "where", where)
        return where


@dataclass(frozen=True, eq=False)
class Fix:
    applicability: str  # "safe" | "unsafe"
    title: str
    edits: Tuple[Edit, ...]
    add_imports: Tuple[ImportSpec, ...] = ()
    # Removed only if nothing uses the name any more once the edits are applied.
    remove_imports: Tuple[ImportSpec, ...] = ()
    # What the fix does, where a caller tells fixes of one rule apart (``gradlint
    # migrate`` counts some): a word the rule defines; "" for any other fix.
    kind: str = ""
