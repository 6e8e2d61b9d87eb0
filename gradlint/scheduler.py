"""Checks the files of one run, each in the cheapest way that gives its result.

1. From the cache, when it holds the file's findings (see ``gradlint.cache``);
   with ``--fix``, only when none of them has a fix to apply.
2. In this process, when the engine will not parse it (it contains no trigger
   of an enabled rule): most files of a code base, which need only to be read.
   ``runner.lint_file`` still makes the report, so that ``needs_parse`` only
   decides where a file is checked, never what its report says. In a large
   run with forked workers, the workers answer ``needs_parse`` instead.
3. The rest, parsed and checked by ``runner.lint_file``: in worker processes
   when there are enough of them to be worth starting workers, else here;
   the garbage collector waits for the end of each file (``session.one_file``).

Reports come back in the order of ``files`` whatever the number of workers,
so the output does not depend on it.
"""

from __future__ import annotations

import gc
import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from gradlint import prefilter
from gradlint.config import Settings
from gradlint.files import Document, SourceFile, read_document
from gradlint.options import LintSettings
from gradlint.results import FileReport
from gradlint.runner import Mode, display_path, lint_file
from gradlint.semantic import project, star_exports
from gradlint.session import Session, index_files, one_file

# Below this many files to parse, starting workers (~10 ms each, forked)
# costs about what they would save.
MIN_PARALLEL = 4
# From this many files to check on, the gates (about a millisecond a file) cost
# more than handing the files that need no parse to the workers too.
GATE_IN_WORKERS = 64
# The index of the run being checked, for forked workers to inherit instead of
# being sent it with every file (see ``_lint_parsed``).
_RUN_INDEX: List[Optional[project.Project]] = [None]


def check_paths(
    files: Sequence[Path],
    session: Union[Session, Settings],
    mode: Mode,
    on_file_done: Optional[Callable[[FileReport], None]] = None,
    *,
    jobs: Optional[int] = None,
    cache: Optional[Any] = None,
    last_collection: bool = True,
) -> List[FileReport]:
    """Reports for ``files``, in order. ``session``: the run's settings and cache
    (its index is built here, over ``files``); ``jobs``: worker processes
    (default: one per CPU); ``cache``: with bare settings, a
    ``gradlint.cache.Cache``, or None not to use one; ``last_collection=False``:
    the caller ends the process without freeing what the run made once the
    reports are written, so the last file checked here is not collected after."""
    if not isinstance(session, Session):
        session = Session(session, cache=cache)
    reports: List[Optional[FileReport]] = [None] * len(files)
    run_session = session
    froze: List[bool] = []
    # Checked here, one after another: the longest may be parsed while the index is made.
    meanwhile = (lambda read: froze.append(_parse_ahead(files, read, run_session))) if len(files) < MIN_PARALLEL else None
    try:
        index, read = index_files(files, session.cache, jobs or _cpu_count(), meanwhile=meanwhile)
        session = replace(session, index=index)
        _RUN_INDEX[0] = index
        return _check(files, session, mode, on_file_done, jobs, reports, read, last_collection)
    finally:
        _RUN_INDEX[0] = None
        if meanwhile is not None:
            _forget_parsed_ahead()
        if any(froze):
            gc.unfreeze()  # what `_parse_ahead` froze, back in the collector's sight


def _parse_ahead(files: Sequence[Path], read: Dict[int, Document], session: Session) -> bool:
    """Parse the longest of the run's Python files that its check will parse, as the
    prefilter tells without the project index: the index only adds rules to run
    (``prefilter.ProjectGate``), so a file that needs parsing without it needs it with
    it. Its check takes the parse (``engine.parse``). Whether it froze the collector's
    objects (``gc.freeze``), for the caller to unfreeze at the end of the run."""
    candidates = [(len(doc.text), k) for k, doc in read.items() if isinstance(doc, SourceFile)]
    if not candidates:
        return False
    _, k = max(candidates)
    text = read[k].text
    if _needs_parse(text, session.rules(files[k]).codes, None):
        from gradlint.engine import parse_ahead

        with one_file(collect=False):  # its objects live on, for the check
            parse_ahead(text)
            # Out of the collector's sight until the run ends (``check_paths``): the
            # first collection after the parse would walk its million objects, all
            # alive, and their check makes and frees its own (``one_file``).
            gc.freeze()
        return True
    return False


def _forget_parsed_ahead() -> None:
    engine = sys.modules.get("gradlint.engine")
    if engine is not None:
        engine.forget_parsed_ahead()


def _check(files, session: Session, mode, on_file_done, jobs, reports, read, last_collection: bool = True) -> List[FileReport]:
    from gradlint import parallel

    cache, index = session.cache, session.index
    assert index is not None

    if cache is not None:
        from gradlint import cache as cache_mod

    def done(i: int, report: FileReport) -> None:
        reports[i] = report
        if on_file_done is not None:
            on_file_done(report)

    # (index, path, rules, source, cache key, stat before reading)
    todo: List[Tuple[int, Path, LintSettings, Optional[Document], Optional[str], Optional[os.stat_result]]] = []
    for i, path in enumerate(files):
        rules = session.rules(path)
        key, st, source = None, None, None
        if cache is not None:
            # A file's findings depend on the facts other files give it, too.
            key = cache.key(path, cache_mod.settings_key(rules.codes, rules.options, mode.edits) + index.digest)
            try:
                st = os.stat(path)
            except OSError:
                st = None
            if st is not None:
                raw = cache.lookup_stat(key, st)
                if raw is None:
                    source = read.get(i) or _read(path)
                    raw = cache.lookup_digest(key, source.digest, st) if source is not None else None
                diagnostics = cache_mod.decode_diagnostics(raw) if raw is not None else None
                if diagnostics is not None and not _fixes_something(diagnostics, mode):
                    report = FileReport(display_path(path), diagnostics=diagnostics)
                    if mode.source and diagnostics:
                        # The `full` format quotes the checked text: the file itself, whose
                        # content the cache entry was just matched against (or its stat).
                        if source is None:
                            source = _read(path)
                            if source is not None and cache.lookup_digest(key, source.digest, st) is None:
                                source = None  # changed since its stat was taken: checked again below
                        if source is not None:
                            report.source = source.text
                            report.cells = source.cell_texts(source.text)
                    if not (mode.source and diagnostics and report.source is None):
                        done(i, report)
                        continue
        todo.append((i, path, rules, source, key, st))

    jobs = jobs or parallel.cpu_count()
    # Many files and forked workers: the workers themselves decide which files
    # to parse, so that the gates run in parallel too (``_lint_gated``).
    gate_there = jobs > 1 and len(todo) >= GATE_IN_WORKERS and parallel.forks()
    parse: List[Tuple[int, Path, LintSettings, Document]] = []
    # What to cache once the reports are in: (index, source, key, stat)
    to_store: List[Tuple[int, Document, str, os.stat_result]] = []
    if todo:
        for i, path, rules, source, key, st in todo:
            if source is None:
                source = read.get(i) or _read(path)
            if source is None:  # unreadable: lint_file reports why
                done(i, lint_file(path, rules, mode))
                continue
            if key is not None and st is not None:
                to_store.append((i, source, key, st))
            if gate_there or _needs_parse(source.text, rules.codes, index):
                parse.append((i, path, rules, source))
            else:
                done(i, lint_file(path, rules, mode, source))  # no parse: cheap

    if jobs > 1 and len(parse) >= MIN_PARALLEL:
        # Applying fixes may change imports in ways only LibCST's codemods do; rendering
        # edits (json, sarif, full) does without them (fixes._update_imports_quick) but
        # for rare changes, which a worker imports them for.
        if (mode.fix or mode.diff) and parallel.forks():
            from gradlint.import_changes import preload_import_changes

            preload_import_changes()
        # The largest files first, so that no worker is left with one at the end.
        parse.sort(key=lambda t: -len(t[3].text))
        # Forked workers inherit the project index; others (spawn) are sent it with each
        # file. Either way the rules go without it: it is not pickled once per file.
        shared = parallel.forks()
        parallel.map_ordered(
            _lint_gated if gate_there else _lint_parsed if shared else _lint_with_index,
            # A notebook is read again in the worker rather than sent to it.
            [
                (*(() if shared else (index,)), path, replace(rules, index=None), mode, source if isinstance(source, SourceFile) else None)
                for _, path, rules, source in parse
            ],
            jobs,
            on_result=lambda k, result: done(parse[k][0], _as_report(parse[k][1], result)),
        )
    else:
        for k, (i, path, rules, source) in enumerate(parse):
            done(i, _lint_parsed(path, rules, mode, source, collect=last_collection or k < len(parse) - 1))

    if cache is not None:
        if not (mode.fix or mode.diff):  # fixes change the files: their results are not what was read
            for i, source, key, st in to_store:
                report = reports[i]
                # Not cached: a report with notes (the cache keeps findings only, and the note must
                # show). A file with a star import depends on the modules it reads
                # (semantic.star_exports): its entry holds while they are unchanged.
                if report is None or report.errors or report.internal_error or report.notes:
                    continue
                deps = star_exports.dependencies(str(files[i]), source.text) if _STAR_IMPORT.search(source.text) else []
                if deps is not None:
                    cache.store(key, source.digest, st, cache_mod.encode_diagnostics(report.diagnostics), deps)
        cache.save()
    return reports


def _lint_gated(path: Path, rules: LintSettings, mode: Mode, source: Optional[SourceFile]) -> FileReport:
    """``lint_file`` of a file that may or may not need parsing, in a forked worker
    (``rules`` without the index, which the worker inherited)."""
    rules = replace(rules, index=_RUN_INDEX[0])
    if source is not None and not _needs_parse(source.text, rules.codes, rules.index):
        return lint_file(path, rules, mode, source)
    return _lint_parsed(path, rules, mode, source)


def _needs_parse(text: str, codes: FrozenSet[str], index: Optional[project.Project]) -> bool:
    """``engine.needs_parse``, asked only of a file the LibCST-free prefilter lets
    through: the engine (LibCST, the rules) is imported for nothing else."""
    if not prefilter.may_parse(text, codes, index):
        return False
    from gradlint.engine import needs_parse

    return needs_parse(text, codes, index)


def _lint_parsed(path: Path, rules: LintSettings, mode: Mode, source: Optional[Document], collect: bool = True) -> FileReport:
    """``lint_file`` for a file that is parsed; in a forked worker (``rules`` without
    the index), with the run's index it inherited. ``collect``: see ``one_file``."""
    if rules.index is None:
        rules = replace(rules, index=_RUN_INDEX[0])
    with one_file(collect):
        return lint_file(path, rules, mode, source)


def _lint_with_index(index: project.Project, path: Path, rules: LintSettings, mode: Mode, source: Optional[Document]) -> FileReport:
    """``_lint_parsed`` in a worker that did not inherit the run's project index."""
    return _lint_parsed(path, replace(rules, index=index), mode, source)


def _cpu_count() -> int:
    from gradlint import parallel

    return parallel.cpu_count()


_STAR_IMPORT = re.compile(r"\bimport\s*\*")


def _read(path: Path) -> Optional[Document]:
    try:
        return read_document(path)
    except Exception:  # ReadError, or a bug: lint_file reads it again and reports either
        return None


def _fixes_something(diagnostics: List[Any], mode: Mode) -> bool:
    if not (mode.fix or mode.diff):
        return False
    return any(d.fix is not None and (d.fix.applicability == "safe" or mode.unsafe_fixes) for d in diagnostics)


def _as_report(path: Path, result: Any) -> FileReport:
    if isinstance(result, FileReport):
        return result
    report = FileReport(display_path(path), internal_error=True)
    report.errors.append(f"internal error: {type(result).__name__}: {result}")
    return report
