"""What checking produces, as plain data: findings, their fixes' text edits,
diagnostics and file reports.

A leaf module: it imports nothing of gradlint but the catalog (for rule
URLs), so that the runner, the cache, the scheduler, the reporters, the
language server and the flake8 plugin can all share these types without
importing one another, and without importing LibCST.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from gradlint import catalog
from gradlint.fix import Fix


@dataclass
class Finding:
    """What a rule reports, before positions are mapped for the user."""

    code: str
    message: str
    # 1-based lines, 0-based columns, as LibCST reports them; reporters convert.
    start: Tuple[int, int]
    end: Tuple[int, int]
    fix: Optional[Fix] = None
    # The node the finding is about, in the tree it was found in (None for a
    # syntax error): callers that look at the code again need not search for it.
    node: Any = field(default=None, compare=False, repr=False)
    # Builds ``fix`` when asked, where the lint was told to defer building fixes
    # (``LintSettings.defer_fixes``; ``fix`` is None then): see ``fix_of``.
    deferred_fix: Optional[Callable[[], Optional["Fix"]]] = field(default=None, compare=False, repr=False)


def fix_of(finding: Finding) -> Optional["Fix"]:
    """The finding's fix, built now if the lint deferred it."""
    return finding.deferred_fix() if finding.deferred_fix is not None else finding.fix


@dataclass(frozen=True)
class TextEdit:
    """A fix as text, for reporters: 1-based rows and columns, end exclusive."""

    content: str
    row: int
    column: int
    end_row: int
    end_column: int
    # The notebook cell (1-based) the rows and columns are relative to; None in a .py file.
    cell: Optional[int] = None


@dataclass(frozen=True)
class FixInfo:
    applicability: str
    message: str
    edits: Tuple[TextEdit, ...] = ()


@dataclass(frozen=True)
class Diagnostic:
    """A finding as reported: 1-based rows and columns."""

    code: str
    message: str
    row: int
    column: int
    end_row: int
    end_column: int
    fix: Optional[FixInfo] = None
    # The notebook cell (1-based) that the rows and columns are relative to; None in a .py file.
    cell: Optional[int] = None
    # In a notebook, the same range in the .ipynb file's own lines and columns (its
    # JSON text), for viewers that show the file as it is (SARIF, GitHub annotations).
    file_row: Optional[int] = None
    file_column: Optional[int] = None
    file_end_row: Optional[int] = None
    file_end_column: Optional[int] = None
    # The row a `# noqa` for this finding must go on, where that is not ``row``
    # (a line continued with a backslash or ending inside a string cannot take one).
    noqa_row: Optional[int] = None

    @property
    def url(self) -> Optional[str]:
        try:
            return catalog.entry(self.code).url
        except KeyError:
            return None


@dataclass
class FileReport:
    path: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    fixed: Counter = field(default_factory=Counter)
    diff: Optional[str] = None
    # One-line problems that are not findings (a fix not written, ...).
    errors: List[str] = field(default_factory=list)
    # How the file was read, where the user should know (an unknown codec in its cookie).
    notes: List[str] = field(default_factory=list)
    internal_error: bool = False
    # The text the diagnostics' positions refer to (after --fix, the fixed
    # text), kept only when Mode.source asks and there are diagnostics.
    source: Optional[str] = None
    # In a notebook, each code cell's text by cell number: diagnostics' rows are
    # relative to their cell.
    cells: Optional[Dict[int, str]] = None
