"""``gradlint migrate``: move legacy (PyTorch <= 0.3) autograd code to today's PyTorch.

A migration is a rule whose fix brings a 0.3-era idiom forward; the set of
migrations is the catalog's word (``migrate = "safe" | "trusted" | "report"``
in ``rules/*.toml``). Per file, in one pass: ``async=`` keyword
arguments are renamed on the token stream (no parser accepts the file before),
then the rules' fixes are applied by the engine (rounds until stable, imports
that became unused removed), and the result is written once, atomically, by
``files.write_source``. A file that is still not Python 3 after the rename
(``print x``) is left untouched and reported with the reason.

Nothing here prints: the command line renders :class:`MigrationRun` with
``reporters.migration``.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from gradlint import catalog, legacy_syntax, parsing, volatile_scope
from gradlint.config import ConfigError, Settings, expand_selector
from gradlint.checking import TOO_DEEP, fix_document, lint_settings
from gradlint.catalog import ASYNC_ARGUMENT
from gradlint.engine import PARSE_ERROR, FixGate, LintSettings, file_noqa, triggered_rules
from gradlint.files import ReadError, WriteError, read_document, write_source
from gradlint.results import Diagnostic, Finding, fix_of
from gradlint.runner import Mode, display_path, to_diagnostics
from gradlint.session import Session


@dataclass(frozen=True)
class Migration:
    code: str
    # What the summary calls it when the catalog name does not say.
    label: Optional[str] = None




def trusted_codes() -> frozenset:
    """The migrations whose unsafe fixes migrate applies too (the catalog marks them)."""
    known = catalog.load()
    return frozenset(code for code in migrations() if known[code].migrate_trusted)


def migrations() -> Dict[str, Migration]:
    """The migrations this build has, by code: the rules the catalog marks ``migrate``
    (which unsafe fixes migrate applies as well is its word too: ``trusted_codes``)."""
    return {code: Migration(code) for code, doc in catalog.load().items() if doc.migrate}


def label(code: str) -> str:
    m = migrations().get(code)
    if m is not None and m.label:
        return m.label
    doc = catalog.load().get(code)
    return doc.name if doc else code


def migration_settings(
    config_path: Optional[str] = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    overrides: Optional[Dict[str, Any]] = None,
) -> Settings:
    """Settings whose selection is the migrations (``--select`` narrows them).

    The configured ``select`` is for ``check`` and does not apply; ``ignore``,
    ``per-file-ignores``, excludes and ``fix-grad-guard`` do.
    """
    codes = frozenset(migrations())
    for sel in select:
        if not expand_selector(sel) & codes:
            raise ConfigError(
                f"{sel!r} selects no migration (`gradlint migrate` applies {', '.join(sorted(codes))})"
            )
    return Settings(config_path, select=list(select) or sorted(codes), ignore=list(ignore), overrides=overrides)


@dataclass
class MigratedSource:
    source: str
    fixed: Counter = field(default_factory=Counter)
    # Findings of the selected migrations left in ``source`` (positions in it).
    remaining: List[Finding] = field(default_factory=list)
    # Why the file was left untouched (it is not Python 3, ...); None when it was not.
    skipped: Optional[str] = None
    problems: List[str] = field(default_factory=list)
    # ``volatile=not self.training`` flags dropped: the summary says what their 0.3
    # meaning (no graph in eval mode) asks of the code now.
    eval_mode_flags: int = 0


def migrate_source(
    source: str, path: str, settings: LintSettings, unsafe: bool = False, gate: Optional[FixGate] = None
) -> MigratedSource:
    """``source`` migrated with the migrations in ``settings.codes``. No I/O.

    ``gate`` refuses fixes whose result cannot be written (a notebook's, see ``fix_source``)."""
    available = migrations()
    codes = settings.codes & frozenset(available)
    suppressed = file_noqa(source)  # the rules honour it; the token-level rename must too
    if suppressed is not None:
        codes = codes - suppressed if suppressed else frozenset()
    text: str = source
    renamed: List[legacy_syntax.AsyncArgument] = []
    if ASYNC_ARGUMENT in codes:
        text, renamed = legacy_syntax.rename_async_arguments(source)
        refused = gate(source, text) if renamed and gate is not None else None
        if refused is not None:
            return MigratedSource(source, skipped=f"the renamed `async=` arguments cannot be written back: {refused}")
    if not renamed and not triggered_rules(text, codes, settings.index):
        return MigratedSource(source)  # nothing any migration could change; not even parsed
    try:
        parsing.check(text)  # before CPython's compile too: see gradlint.parsing
    except parsing.TooComplex as exc:
        return MigratedSource(source, skipped=exc.message)
    except parsing.NotParsed:
        pass  # not Python 3: _not_python3 says why
    reason = _not_python3(text, path)
    if reason is not None:
        return MigratedSource(source, skipped=reason)
    scoped = 0
    if "GL001" in codes:
        # Before the rules: the `Variable(x)` wrappers it leaves are GL002's to remove.
        scoped_text, scoped = volatile_scope.rewrite(text, path)
        if scoped and gate is not None and gate(text, scoped_text) is not None:
            scoped_text, scoped = text, 0  # a region across cells of a notebook: left for a human
        text = scoped_text
    trusted = codes & trusted_codes()
    # GL000 is always linted: a file LibCST cannot parse must be skipped, whatever the selection.
    # Legacy code by the user's word: a loss named so was a one-element tensor (GL003).
    options = dataclasses.replace(settings.options, legacy_code=True)
    lint_settings = dataclasses.replace(settings, codes=codes | {PARSE_ERROR}, line_noqa=True, defer_fixes=False, options=options)
    result = fix_document(path, text, lint_settings, unsafe=unsafe, trusted=trusted, gate=gate)
    for f in result.remaining:
        if f.code == PARSE_ERROR:
            # A file too deep to analyse has no line to point at.
            where = "" if f.message == TOO_DEEP else f" (line {f.start[0]})"
            return MigratedSource(source, skipped=f"{f.message}{where}", problems=result.problems)
    fixed = Counter(result.fixed)
    if renamed:
        fixed[ASYNC_ARGUMENT] += len(renamed)
    if scoped:
        fixed["GL001"] += scoped
    eval_mode = _eval_mode_flags(result.original.findings if result.original else []) - _eval_mode_flags(result.remaining)
    return MigratedSource(result.source, fixed, list(result.remaining), problems=result.problems, eval_mode_flags=eval_mode)


def _eval_mode_flags(findings: Sequence[Finding]) -> int:
    """GL001 findings whose fix drops a flag that follows the module's eval mode."""
    from gradlint.rules.gl001_volatile_flag import EVAL_MODE_FIX_KIND

    count = 0
    for f in findings:
        if f.code == "GL001":
            fix = fix_of(f)
            count += fix is not None and fix.kind == EVAL_MODE_FIX_KIND
    return count


def _not_python3(text: str, path: str) -> Optional[str]:
    """Why CPython does not compile ``text``, or None.

    LibCST accepts some Python 2 (``except E, e:``); a file that is still Python 2
    after migrating would be rewritten for nothing, so CPython has the last word.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in old regexes: not our business
            compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:
        line, column = err.lineno or 1, max((err.offset or 1) - 1, 0)
        return legacy_syntax.describe_syntax_error(text, line, column, err.msg)
    except (RecursionError, MemoryError):
        return "too deeply nested to parse"
    except ValueError as err:
        return str(err)
    return None


@dataclass(frozen=True)
class MigrateMode:
    write: bool = True
    diff: bool = False
    unsafe_fixes: bool = False


@dataclass
class FileMigration:
    path: str
    changed: bool = False
    fixed: Counter = field(default_factory=Counter)
    # Findings left for a human, positions in the migrated file.
    left: List[Diagnostic] = field(default_factory=list)
    diff: Optional[str] = None
    skipped: Optional[str] = None
    errors: List[str] = field(default_factory=list)
    internal_error: bool = False
    eval_mode_flags: int = 0


def migrate_file(path: Path, settings: Union[Session, Settings], mode: MigrateMode) -> FileMigration:
    report = FileMigration(display_path(path))
    rules = lint_settings(path, settings)
    try:
        # A notebook too: its code cells are migrated as one module, and only the
        # changed cells' source is written back (as `check --fix` does).
        source = read_document(path)
    except ReadError as exc:
        report.skipped = str(exc)
        return report
    try:
        result = migrate_source(source.text, report.path, rules, unsafe=mode.unsafe_fixes, gate=source.check_fix)
    except RecursionError:
        report.skipped = "too deeply nested to analyse; left untouched"
        return report
    except Exception as exc:  # keep going with the other files; the run exits 2
        report.internal_error = True
        report.errors.append(f"internal error: {type(exc).__name__}: {exc}")
        return report
    report.errors.extend(result.problems)
    if result.skipped is not None:
        report.skipped = f"{result.skipped}; left untouched"
        return report
    if result.source != source.text:
        if mode.diff:
            report.diff = source.diff(result.source, report.path)
        if mode.write:
            try:
                write_source(source, result.source)
            except WriteError as exc:
                report.skipped = str(exc)
                return report
        report.changed = True
        report.fixed = result.fixed
        report.eval_mode_flags = result.eval_mode_flags
    report.left = to_diagnostics(result.remaining, result.source, None, Mode(), source)
    return report


@dataclass
class MigrationRun:
    files: List[FileMigration]
    mode: MigrateMode

    @property
    def changed(self) -> List[FileMigration]:
        return [f for f in self.files if f.changed]

    @property
    def skipped(self) -> List[FileMigration]:
        return [f for f in self.files if f.skipped is not None]

    @property
    def fixed(self) -> Counter:
        total: Counter = Counter()
        for f in self.files:
            total.update(f.fixed)
        return total

    @property
    def eval_mode_flags(self) -> int:
        return sum(f.eval_mode_flags for f in self.files)

    @property
    def left(self) -> List[tuple]:
        """(path, diagnostic) pairs left for a human, by file and position."""
        pairs = [(f.path, d) for f in self.files for d in f.left]
        pairs.sort(key=lambda p: (p[0], p[1].cell or 0, p[1].row, p[1].column, p[1].code))
        return pairs

    @property
    def internal_error(self) -> bool:
        return any(f.internal_error for f in self.files)


# Below this many files, starting workers (~10 ms each, forked) costs about
# what they would save (as for ``check``: ``scheduler.MIN_PARALLEL``).
MIN_PARALLEL = 4
# The session of the run being migrated, for forked workers to inherit instead
# of being sent it (and its project index) with every file.
_RUN_SESSION: List[Optional[Session]] = [None]


def migrate_paths(
    files: Sequence[Path],
    settings: Settings,
    mode: MigrateMode,
    *,
    jobs: Optional[int] = None,
    on_file_done: Optional[Callable[[FileMigration], None]] = None,
) -> MigrationRun:
    """Migrate ``files`` with ``jobs`` worker processes (default: one per CPU), as
    ``check`` checks them (``gradlint.parallel``); the run, its files in the order
    given, does not depend on the number of workers. ``on_file_done`` is called
    with each file's report as it comes in (a progress bar)."""
    from gradlint import parallel

    jobs = jobs or parallel.cpu_count()
    session = Session(settings).indexed(files, jobs=jobs)
    reports: List[Optional[FileMigration]] = [None] * len(files)

    def done(i: int, report: FileMigration) -> None:
        reports[i] = report
        if on_file_done is not None:
            on_file_done(report)

    if jobs <= 1 or len(files) < MIN_PARALLEL:
        for i, path in enumerate(files):
            done(i, migrate_file(path, session, mode))
        return MigrationRun(reports, mode)  # type: ignore[arg-type]

    shared = parallel.forks()
    if shared:
        # Imported once here, not once in each forked worker.
        from gradlint.import_changes import preload_import_changes
        from gradlint.rules import all_rules

        all_rules()
        preload_import_changes()
    # The largest files first, so that no worker is left with one at the end.
    order = sorted(range(len(files)), key=lambda i: -_size(files[i]))
    _RUN_SESSION[0] = session
    try:
        parallel.map_ordered(
            _migrate_inherited if shared else _migrate_sent,
            [(files[i], mode) if shared else (files[i], session, mode) for i in order],
            jobs,
            on_result=lambda k, result: done(order[k], _as_migration(files[order[k]], result)),
        )
    finally:
        _RUN_SESSION[0] = None
    return MigrationRun(reports, mode)  # type: ignore[arg-type]


def _migrate_inherited(path: Path, mode: MigrateMode) -> FileMigration:
    """``migrate_file`` in a forked worker, with the session it inherited."""
    session = _RUN_SESSION[0]
    assert session is not None
    return migrate_file(path, session, mode)


def _migrate_sent(path: Path, session: Session, mode: MigrateMode) -> FileMigration:
    return migrate_file(path, session, mode)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _as_migration(path: Path, result: Any) -> FileMigration:
    if isinstance(result, FileMigration):
        return result
    # The worker died on this file, or its report could not come back.
    report = FileMigration(display_path(path), internal_error=True)
    report.errors.append(f"internal error: {type(result).__name__}: {result}")
    return report
