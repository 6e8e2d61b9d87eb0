"""Reporters: pure functions from run results to the text printed on stdout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence

from gradlint.runner import Diagnostic, FileReport


@dataclass(frozen=True)
class RunInfo:
    """What a reporter needs to know about the run besides its results."""

    fix: bool = False
    unsafe_fixes: bool = False
    quiet: bool = False


def fixable(diag: Diagnostic, unsafe_fixes: bool) -> bool:
    return diag.fix is not None and (diag.fix.applicability == "safe" or unsafe_fixes)


def sorted_diagnostics(reports: Sequence[FileReport]) -> List[tuple]:
    """(path, diagnostic) pairs sorted by file, then position (cell first in a notebook), then code."""
    pairs = [(r.path, d) for r in reports for d in r.diagnostics]
    pairs.sort(key=lambda p: (p[0], p[1].cell or 0, p[1].row, p[1].column, p[1].code))
    return pairs


Reporter = Callable[[Sequence[FileReport], RunInfo], str]


def get(name: str) -> Reporter:
    if name == "json":
        from gradlint.reporters.json import render
    elif name == "text":
        from gradlint.reporters.text import render
    else:
        raise KeyError(name)
    return render


def location(path: str, diag: Diagnostic) -> str:
    """``path:row:col``, or ``path:cell N:row:col`` in a notebook (as Ruff prints it)."""
    cell = f"cell {diag.cell}:" if diag.cell is not None else ""
    return f"{path}:{cell}{diag.row}:{diag.column}"


FORMATS = ("text", "json")
