"""Run the engine over files: read, lint or fix, write, and collect plain results.

Everything this module returns is plain data (no CST nodes), so reporters can
render it and it can cross process boundaries.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from gradlint import catalog
from gradlint.config import Settings
from gradlint.engine import PARSE_ERROR, LintSettings, fix_allowed, fix_source, lint_source
from gradlint.files import ReadError, SourceFile, WriteError, decode, read_source, write_source
from gradlint.fixes import TextEdit, apply_fixes, text_edits
from gradlint.rule import Finding


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
    # The text the diagnostics' positions refer to (after --fix, the fixed
    # text), kept only when Mode.source asks and there are diagnostics.
    source: Optional[str] = None


@dataclass(frozen=True)
class Mode:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    # Compute each fix's text edits (for JSON output); costs one render per fix.
    edits: bool = False
    # Keep the checked text in FileReport.source (for reporters that quote it).
    source: bool = False


def display_path(path: Path) -> str:
    return os.path.normpath(str(path))


def _read_error_diagnostic(message: str) -> Diagnostic:
    doc = catalog.load()[PARSE_ERROR]
    return Diagnostic(PARSE_ERROR, doc.format_message(detail=message), 1, 1, 1, 1)


def to_diagnostics(findings: Sequence[Finding], module_source: Optional[str], context, mode: Mode) -> List[Diagnostic]:
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
    report = FileReport(display_path(path))
    codes, options = run_settings.codes_for(path)
    try:
        source = read_source(path)
    except ReadError as exc:
        if PARSE_ERROR in codes:
            report.diagnostics.append(_read_error_diagnostic(str(exc)))
        return report
    _check_source(report, source, LintSettings(codes, options), mode, write_source)
    return report


def check_stdin(data: bytes, path: Path, display: str, run_settings: Settings, mode: Mode) -> Tuple[FileReport, bytes]:
    """Check source given as bytes (read from stdin) as if it were the file ``path``.

    Nothing is written: with ``mode.fix`` the fixed source comes back as bytes
    in the input's encoding (the input itself when nothing changed), for the
    caller to print.
    """
    report = FileReport(display)
    codes, options = run_settings.codes_for(path)
    try:
        text, encoding = decode(data)
    except ReadError as exc:
        if PARSE_ERROR in codes:
            report.diagnostics.append(_read_error_diagnostic(str(exc)))
        return report, data
    source = SourceFile(path, text, encoding, hashlib.sha256(data).hexdigest(), 0, len(data))
    final = _check_source(report, source, LintSettings(codes, options), mode, None)
    if final == text:
        return report, data
    try:
        return report, final.encode(encoding)
    except UnicodeEncodeError as exc:
        report.errors.append(f"fixed code cannot be encoded as {encoding}: {exc.reason}; printed unchanged")
        return report, data


Writer = Callable[[SourceFile, str], None]


def _check_source(report: FileReport, source: SourceFile, settings: LintSettings, mode: Mode, write: Optional[Writer]) -> str:
    """Lint or fix ``source`` into ``report``; the text its diagnostics refer to comes back."""
    final = source.text
    try:
        if mode.fix or mode.diff:
            final = _fix_file(report, source, settings, mode, write)
        else:
            result = lint_source(source.text, report.path, settings)
            report.diagnostics = to_diagnostics(result.findings, source.text, result.context, mode)
    except RecursionError:
        report.diagnostics = [_read_error_diagnostic("too deeply nested to analyse")]
    except Exception as exc:  # keep going with the other files; the run exits 2
        report.internal_error = True
        report.errors.append(f"internal error: {type(exc).__name__}: {exc}")
    if mode.source and report.diagnostics:
        report.source = final
    return final


def unified_diff(path: str, old: str, new: str) -> str:
    """A patch turning ``old`` into ``new`` that ``git apply`` takes."""
    return "".join(
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path)
    )


def _fix_file(report: FileReport, source: SourceFile, settings: LintSettings, mode: Mode, write: Optional[Writer]) -> str:
    """Fix ``source``, writing it with ``write`` (None: the caller prints it); returns the resulting text."""
    result = fix_source(source.text, report.path, settings, unsafe=mode.unsafe_fixes)
    report.errors.extend(result.problems)
    changed = result.source != source.text
    if changed and mode.diff:
        report.diff = unified_diff(report.path, source.text, result.source)
        report.fixed = result.fixed
        lint = lint_source(source.text, report.path, settings)
        report.diagnostics = to_diagnostics(lint.findings, source.text, lint.context, mode)
        return source.text
    if changed:
        try:
            if write is not None:
                write(source, result.source)
        except WriteError as exc:
            report.errors.append(str(exc))
            lint = lint_source(source.text, report.path, settings)
            report.diagnostics = to_diagnostics(lint.findings, source.text, lint.context, mode)
            return source.text
        report.fixed = result.fixed
    final = lint_source(result.source, report.path, settings) if mode.edits else None
    if final is not None:
        report.diagnostics = to_diagnostics(final.findings, result.source, final.context, mode)
    else:
        report.diagnostics = to_diagnostics(result.remaining, None, None, mode)
    return result.source


def check_paths(
    files: Sequence[Path],
    settings: Settings,
    mode: Mode,
    on_file_done: Optional[Callable[[FileReport], None]] = None,
) -> List[FileReport]:
    """Check ``files`` in order; ``on_file_done`` (progress display) is called after each."""
    reports = []
    for path in files:
        report = check_file(path, settings, mode)
        if on_file_done is not None:
            on_file_done(report)
        reports.append(report)
    return reports
