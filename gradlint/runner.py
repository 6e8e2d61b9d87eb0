"""Run the engine over files: read, lint or fix, write, and collect plain results.

Everything this module returns is plain data (no CST nodes), so reporters can
render it and it can cross process boundaries.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple, Union

from gradlint import catalog, prefilter
from gradlint.catalog import PARSE_ERROR
from gradlint.noqa import PlacementReader
from gradlint.config import Settings
from gradlint.files import Document, ReadError, SourceFile, WriteError, decode_with_note, read_document, write_source
from gradlint.options import LintSettings
from gradlint.results import Diagnostic, FileReport, Finding, FixInfo, TextEdit
from gradlint.session import Session

if TYPE_CHECKING:
    from gradlint.fix_renderer import FixRenderer

# The engine (and so LibCST, a fifth of a second to import) is imported only
# by the functions that lint: a run answered from the cache never needs it.


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
    doc = catalog.entry(PARSE_ERROR)
    return Diagnostic(PARSE_ERROR, doc.format_message(detail=message), 1, 1, 1, 1)


def _problem_diagnostics(doc: Document) -> List[Diagnostic]:
    """Parse-error findings for the parts of a document left out of its text (a notebook
    cell that does not parse): reported whatever rules are enabled, as a file's are."""
    if not doc.problems:
        return []
    doc_ = catalog.entry(PARSE_ERROR)
    out = []
    for p in doc.problems:
        file_row, file_column = doc.json_position(doc.text, p.cell, p.row, p.column + 1)  # type: ignore[union-attr]
        out.append(
            Diagnostic(
                PARSE_ERROR, doc_.format_message(detail=p.message), p.row, p.column + 1, p.row, p.column + 1,
                cell=p.cell, file_row=file_row, file_column=file_column, file_end_row=file_row, file_end_column=file_column,
            )
        )
    return out


def names_of(context: Any) -> Optional[Callable[[], Any]]:
    """The semantic names model of ``context``'s tree (a ``gradlint.rule.FileContext``),
    for fixes to ask whether an import is still used; None if it has none."""
    if getattr(context, "semantic", None) is None:
        return None
    return lambda: context.semantic.names


def fix_renderer(context: Any, text: str) -> "FixRenderer":
    """The renderer of the fixes found in ``context`` (a ``gradlint.rule.FileContext``) on
    ``text``, with the facts the rules already have of it. Positions are of the text
    the rules parsed: where that is not ``text`` but has its lines (a file read with
    ``async=`` renamed), fixes are rendered on it and their edits given on ``text``."""
    from gradlint.fix_renderer import FixRenderer
    from gradlint.parsing import split_lines

    parsed = getattr(context, "source", None)
    if parsed == text:
        parsed = None
    elif parsed is not None and len(split_lines(parsed)) != len(split_lines(text)):
        # Not line for line: each statement is found by rendering the whole module.
        return FixRenderer(context.module, text, context.parents, names_of(context))
    span = context.span
    return FixRenderer(context.module, text, context.parents, names_of(context), span, parsed)


def to_diagnostics(
    findings: Sequence[Finding], text: Optional[str], context, mode: Mode, doc: Optional[Document] = None, noqa_rows: bool = True
) -> List[Diagnostic]:
    """Findings on ``text`` (a document's text, or a fixed version of it) as diagnostics.

    ``doc`` maps positions and fixes back to the document (a notebook's cells);
    without it they are a ``.py`` file's own. ``context`` (the parsed ``text``)
    is needed to compute fix edits for JSON output, and by documents that check
    each fix (``checks_fixes``: a notebook drops the fixes it could not write back).
    ``noqa_rows=False``: where a ``# noqa`` would work is not read (``noqa_row`` is
    None), for a caller that prints no finding (``--diff``): a tokenizing of the file.
    """
    out = []
    # One per file: it renders the file once, then each fix on its own statement.
    renderer = fix_renderer(context, text) if context is not None and text is not None else None
    placements = PlacementReader(text) if noqa_rows and text is not None and (doc is None or isinstance(doc, SourceFile)) else None
    if renderer is not None and (doc is None or isinstance(doc, SourceFile)):
        renderer.check_together(f.fix for f in findings if f.fix is not None)
    for f in findings:
        info = None
        fix = f.fix
        if fix is not None:
            edits: Optional[Tuple[TextEdit, ...]] = ()
            if renderer is not None and (doc is None or isinstance(doc, SourceFile)) and not renderer.parses(fix):
                edits = None  # what --fix would not write is not offered (no [*], no edits)
            elif mode.edits and renderer is not None and text is not None:
                try:
                    if doc is None or isinstance(doc, SourceFile):
                        edits = tuple(renderer.text_edits(fix))
                    else:
                        edits = doc.fix_edits(text, renderer.fixed_text(fix))
                except Exception:  # an unrenderable fix is reported without edits
                    edits = ()
            elif doc is not None and doc.checks_fixes and renderer is not None and text is not None:
                edits = () if doc.fix_fits(text, fix, functools.partial(renderer.fixed_text, fix)) else None
            if edits is not None:
                info = FixInfo(fix.applicability, fix.title, edits)
        cell, row, column, end_row, end_column = None, f.start[0], f.start[1] + 1, f.end[0], f.end[1] + 1
        message, in_file = f.message, (None, None, None, None)
        if doc is not None and text is not None:
            cell, row, column = doc.locate(text, row, column)
            end_cell, end_row, end_column = doc.locate(text, end_row, end_column)
            if cell is not None:  # a notebook
                message = doc.cell_message(text, message)  # type: ignore[union-attr]
                in_file = (
                    *doc.json_position(text, cell, row, column),  # type: ignore[union-attr]
                    *doc.json_position(text, end_cell or cell, end_row, end_column),  # type: ignore[union-attr]
                )
        out.append(
            Diagnostic(
                code=f.code,
                message=message,
                row=row,
                column=column,
                end_row=end_row,
                end_column=end_column,
                fix=info,
                cell=cell,
                file_row=in_file[0],
                file_column=in_file[1],
                file_end_row=in_file[2],
                file_end_column=in_file[3],
                noqa_row=_moved(placements(row), row) if placements is not None else None,
            )
        )
    return out


def _moved(target: Optional[int], row: int) -> Optional[int]:
    # Where a `# noqa` for a finding works, when not on the finding's own row
    # (a backslash continuation, a multi-line string).
    return target if target != row else None


def check_file(path: Path, run_settings: Union[Session, Settings], mode: Mode) -> FileReport:
    """Check (or fix) the one file ``path``, with the index of its project (unless
    ``run_settings`` is a session that has one already)."""
    session = Session.of(run_settings)
    if session.index is None:
        session = session.indexed([path])
    return lint_file(path, session.rules(path), mode)


def lint_file(path: Path, rules: LintSettings, mode: Mode, source: Optional[Document] = None) -> FileReport:
    """Check (or fix) one file with ``rules`` (its rules, their options and the
    run's project index: ``Session.rules``); ``source``: the file, if already read."""
    report = FileReport(display_path(path))
    if source is None:
        try:
            source = read_document(path)
        except ReadError as exc:
            if PARSE_ERROR in rules.codes:
                report.diagnostics.append(_read_error_diagnostic(str(exc)))
            return report
        except Exception as exc:  # a bug reading one file must not end the run; it exits 2
            report.internal_error = True
            report.errors.append(f"internal error: {type(exc).__name__}: {exc}")
            return report
    report.notes.extend(getattr(source, "notes", ()))
    _check_source(report, source, rules, mode, write_source)
    return report


def check_stdin(
    data: bytes, path: Path, display: str, run_settings: Union[Session, Settings], mode: Mode
) -> Tuple[FileReport, bytes]:
    """Check source given as bytes (read from stdin) as if it were the file ``path``,
    with the index of the project ``path`` belongs to (``path`` as given, in
    place of the file on disk, if any).

    Nothing is written: with ``mode.fix`` the fixed source comes back as bytes
    in the input's encoding (the input itself when nothing changed), for the
    caller to print.
    """
    session = Session.of(run_settings)
    report = FileReport(display)
    codes, _ = session.settings.codes_for(path)
    try:
        text, encoding, note = decode_with_note(data)
    except ReadError as exc:
        if PARSE_ERROR in codes:
            report.diagnostics.append(_read_error_diagnostic(str(exc)))
        return report, data
    source = SourceFile(path, text, encoding, hashlib.sha256(data).hexdigest(), 0, len(data))
    if note:
        report.notes.append(note)
    if session.index is None and str(path) != "-":
        session = session.indexed([path], texts={str(path): text})
    final = _check_source(report, source, session.rules(path), mode, None)
    if final == text:
        return report, data
    try:
        return report, final.encode(encoding)
    except UnicodeEncodeError as exc:
        report.errors.append(f"fixed code cannot be encoded as {encoding}: {exc.reason}; printed unchanged")
        return report, data


Writer = Callable[[Document, str], None]


def _check_source(report: FileReport, doc: Document, settings: LintSettings, mode: Mode, write: Optional[Writer]) -> str:
    """Lint or fix ``doc`` into ``report``; the text its diagnostics refer to comes back."""
    from gradlint.checking import check_document

    final = doc.text
    try:
        if mode.fix or mode.diff:
            final = _fix_file(report, doc, settings, mode, write)
        else:
            checked = check_document(report.path, doc.text, settings)
            report.diagnostics = to_diagnostics(checked.findings, doc.text, checked.context, mode, doc)
        report.diagnostics[:0] = _problem_diagnostics(doc)
    except Exception as exc:  # keep going with the other files; the run exits 2
        report.internal_error = True
        report.errors.append(f"internal error: {type(exc).__name__}: {exc}")
    if mode.source and report.diagnostics:
        report.source = final
        report.cells = doc.cell_texts(final)
    return final


def _fix_file(report: FileReport, doc: Document, settings: LintSettings, mode: Mode, write: Optional[Writer]) -> str:
    """Fix ``doc``, writing it with ``write`` (None: the caller prints it); returns the resulting text."""
    if not prefilter.needs_engine(doc.text, settings.codes, settings.index, settings.line_noqa):
        return doc.text  # no finding, so nothing to fix: LibCST is not imported for it
    from gradlint.checking import fix_document

    # ``--diff`` prints the fixed text, the number of fixes and an exit code of the diff
    # alone: no finding is read, so every lint looks only for fixes.
    result = fix_document(report.path, doc.text, settings, unsafe=mode.unsafe_fixes, gate=doc.check_fix, remaining=not mode.diff)
    report.errors.extend(result.problems)
    changed = result.source != doc.text
    original, final = result.original, result.final
    assert original is not None and final is not None
    if mode.diff and not changed:
        # The text as written: its first lint, whatever rounds gave the text back unchanged.
        final = original
    if changed and mode.diff:
        report.diff = doc.diff(result.source, report.path)
        report.fixed = result.fixed
        # Printed is the diff alone: the findings' fixes are not rendered, nor checked
        # one by one (on a long file, a parse of all of it applied at once), nor where
        # a `# noqa` would go (only the JSON report and `--add-noqa` read that). The
        # diagnostics are those of the rules that can fix (``engine.fix_source``):
        # neither printed nor cached.
        report.diagnostics = to_diagnostics(original.findings, doc.text, None, mode, doc, noqa_rows=False)
        return doc.text
    if changed:
        try:
            if write is not None:
                write(doc, result.source)
        except WriteError as exc:
            report.errors.append(str(exc))
            report.diagnostics = to_diagnostics(original.findings, doc.text, original.context, mode, doc)
            return doc.text
        report.fixed = result.fixed
    report.diagnostics = to_diagnostics(final.findings, result.source, final.context, mode, doc, noqa_rows=not mode.diff)
    return result.source
