"""Reporters: pure functions from run results to the text printed on stdout.

One module per ``--output-format``; each has ``render(reports, info) -> str``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

from gradlint.runner import Diagnostic, FileReport


@dataclass(frozen=True)
class RunInfo:
    """What a reporter needs to know about the run besides its results."""

    fix: bool = False
    unsafe_fixes: bool = False
    quiet: bool = False
    # ANSI colours (the CLI decides: a TTY and no NO_COLOR).
    color: bool = False
    # The directory relative paths are relative to (SARIF's %SRCROOT%).
    cwd: Optional[str] = None
    # --show-fixes: list what --fix fixed before the summary.
    show_fixes: bool = False
    # The paths held no file to check (the CLI has warned): no "All checks passed!".
    no_files: bool = False


def fixable(diag: Diagnostic, unsafe_fixes: bool) -> bool:
    return diag.fix is not None and (diag.fix.applicability == "safe" or unsafe_fixes)


def sorted_diagnostics(reports: Sequence[FileReport]) -> List[tuple]:
    """(path, diagnostic) pairs sorted by file, then position (cell first in a notebook), then code."""
    pairs = [(r.path, d) for r in reports for d in r.diagnostics]
    pairs.sort(key=lambda p: (p[0], p[1].cell or 0, p[1].row, p[1].column, p[1].code))
    return pairs


Reporter = Callable[[Sequence[FileReport], RunInfo], str]

# --output-format values, in the order `--help` lists them.
FORMATS = ("full", "concise", "json", "sarif", "github")
# `text` was the name of the one-line format before there were others.
ALIASES = {"text": "concise"}


def get(name: str) -> Reporter:
    name = ALIASES.get(name, name)
    if name not in FORMATS:
        raise KeyError(name)
    return importlib.import_module(f"gradlint.reporters.{name}").render


def location(path: str, diag: Diagnostic) -> str:
    """``path:row:col``, or ``path:cell N:row:col`` in a notebook (as Ruff prints it)."""
    cell = f"cell {diag.cell}:" if diag.cell is not None else ""
    return f"{path}:{cell}{diag.row}:{diag.column}"
