"""Run the engine over files: read, lint or fix, write, and collect plain results.

Everything this module returns is plain data (no CST nodes), so reporters can
render it and it can cross process boundaries.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from gradlint import catalog
from gradlint.catalog import PARSE_ERROR
from gradlint.config import Settings
from gradlint.files import ReadError, SourceFile, WriteError, read_source, write_source
from gradlint.options import RuleOptions

if TYPE_CHECKING:
    from gradlint.engine import LintSettings
    from gradlint.fixes import TextEdit
    from gradlint.rule import Finding

# The engine (and so LibCST, a fifth of a second to import) is imported only
# by the functions that lint: a run answered from the cache never needs it.


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

    @property
    def url(self) -> Optional[str]:
        doc = catalog.load().get(self.code)
        return doc.url if doc else None


@dataclass
class FileReport:
    path: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    fixed: Counter = field(default_factory=Counter)
    diff: Optional[str] = None
    # One-line problems that are not findings (a fix not written, ...).
    errors: List[str] = field(default_factory=list)
    internal_error: bool = False


@dataclass(frozen=True)
class Mode:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    # Compute each fix's text edits (for JSON output); costs one render per fix.
    edits: bool = False


def display_path(path: Path) -> str:
    return os.path.normpath(str(path))


def _read_error_diagnostic(message: str) -> Diagnostic:
    doc = catalog.load()[PARSE_ERROR]
    return Diagnostic(PARSE_ERROR, doc.format_message(detail=message), 1, 1, 1, 1)


def to_diagnostics(findings: Sequence[Finding], module_source: Optional[str], context, mode: Mode) -> List[Diagnostic]:
    from gradlint.fixes import apply_fixes, text_edits

    out = []
    for f in findings:
        info = None
        if f.fix is not None:
            edits: Tuple[TextEdit, ...] = ()
            if mode.edits and context is not None and module_source is not None:
                try:
                    edits = tuple(text_edits(module_source, apply_fixes(context.module, [f.fix])))
                except Exception:  # an unrenderable fix is reported without edits
                    edits = ()
            info = FixInfo(f.fix.applicability, f.fix.title, edits)
        out.append(
            Diagnostic(
                code=f.code,
                message=f.message,
                row=f.start[0],
                column=f.start[1] + 1,
                end_row=f.end[0],
                end_column=f.end[1] + 1,
                fix=info,
            )
        )
    return out


def check_file(path: Path, run_settings: Settings, mode: Mode) -> FileReport:
    codes, options = run_settings.codes_for(path)
    return lint_file(path, codes, options, mode)


def lint_file(
    path: Path, codes: FrozenSet[str], options: RuleOptions, mode: Mode, source: Optional[SourceFile] = None
) -> FileReport:
    """Check (or fix) one file with the rules ``codes``; ``source``: the file, if already read."""
    from gradlint.engine import LintSettings, lint_source

    report = FileReport(display_path(path))
    if source is None:
        try:
            source = read_source(path)
        except ReadError as exc:
            if PARSE_ERROR in codes:
                report.diagnostics.append(_read_error_diagnostic(str(exc)))
            return report
    settings = LintSettings(codes, options)
    try:
        if mode.fix or mode.diff:
            _fix_file(report, source, settings, mode)
        else:
            result = lint_source(source.text, report.path, settings)
            report.diagnostics = to_diagnostics(result.findings, source.text, result.context, mode)
    except RecursionError:
        report.diagnostics = [_read_error_diagnostic("too deeply nested to analyse")]
    except Exception as exc:  # keep going with the other files; the run exits 2
        report.internal_error = True
        report.errors.append(f"internal error: {type(exc).__name__}: {exc}")
    return report


def _fix_file(report: FileReport, source: SourceFile, settings: LintSettings, mode: Mode) -> None:
    from gradlint.engine import fix_source

    result = fix_source(source.text, report.path, settings, unsafe=mode.unsafe_fixes)
    report.errors.extend(result.problems)
    changed = result.source != source.text
    if changed and mode.diff:
        report.diff = "".join(
            difflib.unified_diff(
                source.text.splitlines(keepends=True),
                result.source.splitlines(keepends=True),
                fromfile=report.path,
                tofile=report.path,
            )
        )
        report.fixed = result.fixed
        lint = result.original
        report.diagnostics = to_diagnostics(lint.findings, source.text, lint.context, mode)
        return
    if changed:
        try:
            write_source(source, result.source)
        except WriteError as exc:
            report.errors.append(str(exc))
            lint = result.original
            report.diagnostics = to_diagnostics(lint.findings, source.text, lint.context, mode)
            return
        report.fixed = result.fixed
    final = result.final
    report.diagnostics = to_diagnostics(final.findings, result.source, final.context, mode)


def check_paths(
    files: Sequence[Path],
    settings: Settings,
    mode: Mode,
    on_file_done: Optional[Callable[[FileReport], None]] = None,
    *,
    jobs: Optional[int] = 1,
    cache=None,
) -> List[FileReport]:
    """Reports for ``files``, in order; ``jobs`` worker processes (None: one per
    CPU), results from ``cache`` (a ``gradlint.cache.Cache``) where it has them.
    ``on_file_done`` is called with each report as it is ready (in any order)."""
    from gradlint.scheduler import check_paths as schedule

    return schedule(files, settings, mode, on_file_done, jobs=jobs, cache=cache)
