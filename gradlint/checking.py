"""One path from a document's text to its findings, shared by every entry point.

``gradlint check`` (the runner, on paths and on stdin), ``--add-noqa``,
``gradlint migrate``, ``gradlint verify``, the language server and the flake8
plugin each build a ``gradlint.session.Session`` (settings, project index,
cache) and call :func:`check_document` with it (or :func:`fix_document` to
fix), so that they resolve a path's rules the same way (``Settings.codes_for``:
the nearest configuration, per-file ignores), see the same facts of the other
files of the project, and report a file too deeply nested to analyse the same
way (the parse-error finding at 1:1), and so that what they report for one
document cannot drift apart.

LibCST is imported by these functions, not by this module, and only for a
document that passes ``gradlint.prefilter``: a run answered from the cache,
or whose files mention nothing a rule looks for, never needs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, FrozenSet, List, Optional, Tuple, Union

from gradlint import catalog, prefilter
from gradlint.catalog import PARSE_ERROR
from gradlint.config import Settings
from gradlint.options import LintSettings
from gradlint.results import Finding
from gradlint.session import Session

if TYPE_CHECKING:
    from gradlint.engine import FixGate, FixResult, LintResult

TOO_DEEP = "too deeply nested to analyse"


@dataclass
class DocumentCheck:
    findings: List[Finding]
    # The rules and options the document was checked with (to fix it the same way).
    settings: LintSettings
    # The parsed document (a ``gradlint.rule.FileContext``), when it was parsed:
    # findings' nodes are nodes of its tree.
    context: Optional[Any] = None
    # Where a rule's source repair made the document parse (``engine.LintResult.repaired_by``).
    repaired_by: Optional[Tuple[str, int]] = None
    # And the repaired text's own lint (``engine.LintResult.repaired_lint``).
    repaired_lint: Optional[Any] = None


def lint_settings(
    path: Union[str, Path],
    settings: Union[Session, Settings],
    *,
    extra_codes: FrozenSet[str] = frozenset(),
    line_noqa: bool = True,
) -> LintSettings:
    """The rules and options that govern ``path``, with the session's project index
    (ConfigError when its configuration is broken)."""
    return Session.of(settings).rules(path, extra_codes=extra_codes, line_noqa=line_noqa)


def too_deep_finding() -> Finding:
    """The parse-error finding for a document that parsed but is deeper than the analysis can follow."""
    doc = catalog.entry(PARSE_ERROR)
    return Finding(PARSE_ERROR, doc.format_message(detail=TOO_DEEP), (1, 0), (1, 0))


def check_document(
    path: Union[str, Path],
    source: str,
    settings: Union[Session, Settings, LintSettings],
    *,
    extra_codes: FrozenSet[str] = frozenset(),
    line_noqa: bool = True,
) -> DocumentCheck:
    """The findings on ``source``, the text of the document at ``path``.

    ``settings``: the run's session (the rules for ``path`` are resolved from
    its settings, plus ``extra_codes``, and see its project index), bare
    settings (a session without an index), or rules already resolved.
    ``line_noqa=False`` leaves ``# noqa`` comments to the caller (flake8
    applies its own).
    """
    if not isinstance(settings, LintSettings):
        settings = lint_settings(path, settings, extra_codes=extra_codes, line_noqa=line_noqa)
    if not prefilter.needs_engine(source, settings.codes, settings.index, settings.line_noqa):
        return DocumentCheck([], settings)
    from gradlint.engine import lint_source

    try:
        result = lint_source(source, str(path), settings)
    except RecursionError:
        return DocumentCheck([too_deep_finding()], settings)
    return DocumentCheck(result.findings, settings, result.context, result.repaired_by, result.repaired_lint)


def fix_document(
    path: Union[str, Path],
    source: str,
    settings: Union[Session, Settings, LintSettings],
    *,
    unsafe: bool = False,
    trusted: FrozenSet[str] = frozenset(),
    gate: Optional["FixGate"] = None,
    extra_codes: FrozenSet[str] = frozenset(),
    first: Optional["LintResult"] = None,
    remaining: bool = True,
) -> "FixResult":
    """``source`` with every allowed fix applied (see ``engine.fix_source``); a document
    too deeply nested to analyse comes back unchanged, with a parse-error finding.
    ``first``: its lint already made with these settings; ``remaining=False``: what is
    left after fixing is not asked for (see ``engine.fix_source``)."""
    from gradlint.engine import FixResult, LintResult, fix_source

    if not isinstance(settings, LintSettings):
        settings = lint_settings(path, settings, extra_codes=extra_codes)
    try:
        return fix_source(source, str(path), settings, unsafe=unsafe, trusted=trusted, gate=gate, first=first, remaining=remaining)
    except RecursionError:
        lint = LintResult([too_deep_finding()])
        return FixResult(source, remaining=lint.findings, original=lint, final=lint)
