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
   the garbage collector waits for the end of each file (``_one_file``).

Reports come back in the order of ``files`` whatever the number of workers,
so the output does not depend on it.
"""

from __future__ import annotations

import gc
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from gradlint.config import Settings
from gradlint.files import Document, SourceFile, read_document
from gradlint.results import FileReport
from gradlint.runner import Mode, display_path, lint_file
from gradlint.semantic import project, star_exports

# Below this many files to parse, starting workers (~10 ms each, forked)
# costs about what they would save.
MIN_PARALLEL = 4
# From this many files to check on, the gates (about a millisecond a file) cost
# more than handing the files that need no parse to the workers too.
GATE_IN_WORKERS = 64
# A run of at most this many files (a pre-commit hook, an editor) also indexes
# the files around them (``semantic.project.extra_files``).
FEW_FILES = 16


def check_paths(
    files: Sequence[Path],
    settings: Settings,
    mode: Mode,
    on_file_done: Optional[Callable[[FileReport], None]] = None,
    *,
    jobs: Optional[int] = None,
    cache: Optional[Any] = None,
) -> List[FileReport]:
    """Reports for ``files``, in order. ``jobs``: worker processes (default: one
    per CPU); ``cache``: a ``gradlint.cache.Cache``, or None not to use one."""
    reports: List[Optional[FileReport]] = [None] * len(files)
    index, read = _project_index(files, cache, jobs or _cpu_count())
    project.use(index)
    try:
        return _check(files, settings, mode, on_file_done, jobs, cache, reports, index, read)
    finally:
        project.use(None)


def _check(files, settings, mode, on_file_done, jobs, cache, reports, index, read) -> List[FileReport]:
    from gradlint import parallel

    if cache is not None:
        from gradlint import cache as cache_mod

    def done(i: int, report: FileReport) -> None:
        reports[i] = report
        if on_file_done is not None:
            on_file_done(report)

    # (index, path, codes, options, source, cache key, stat before reading)
    todo: List[Tuple[int, Path, Any, Any, Optional[Document], Optional[str], Optional[os.stat_result]]] = []
    for i, path in enumerate(files):
        codes, options = settings.codes_for(path)
        key, st, source = None, None, None
        if cache is not None:
            # A file's findings depend on the facts other files give it, too.
            key = cache.key(path, cache_mod.settings_key(codes, options, mode.edits) + index.digest)
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
        todo.append((i, path, codes, options, source, key, st))

    jobs = jobs or parallel.cpu_count()
    # Many files and forked workers: the workers themselves decide which files
    # to parse, so that the gates run in parallel too (``_lint_gated``).
    gate_there = jobs > 1 and len(todo) >= GATE_IN_WORKERS and parallel.forks()
    parse: List[Tuple[int, Path, Any, Any, Document]] = []
    # What to cache once the reports are in: (index, source, key, stat)
    to_store: List[Tuple[int, Document, str, os.stat_result]] = []
    if todo:
        from gradlint.engine import needs_parse  # imports LibCST: only when something is not cached

        for i, path, codes, options, source, key, st in todo:
            if source is None:
                source = read.get(i) or _read(path)
            if source is None:  # unreadable: lint_file reports why
                done(i, lint_file(path, codes, options, mode))
                continue
            if key is not None and st is not None:
                to_store.append((i, source, key, st))
            if gate_there or needs_parse(source.text, codes):
                parse.append((i, path, codes, options, source))
            else:
                done(i, lint_file(path, codes, options, mode, source))  # no parse: cheap

    if jobs > 1 and len(parse) >= MIN_PARALLEL:
        if (mode.edits or mode.fix or mode.diff) and parallel.forks():
            from gradlint.fixes import preload_import_changes

            preload_import_changes()
        # The largest files first, so that no worker is left with one at the end.
        parse.sort(key=lambda t: -len(t[4].text))
        # Forked workers inherit the project index; others (spawn) are sent it with each file.
        shared = parallel.forks()
        parallel.map_ordered(
            _lint_gated if gate_there else _lint_parsed if shared else _lint_with_index,
            # A notebook is read again in the worker rather than sent to it.
            [
                (*(() if shared else (index,)), path, codes, options, mode, source if isinstance(source, SourceFile) else None)
                for _, path, codes, options, source in parse
            ],
            jobs,
            on_result=lambda k, result: done(parse[k][0], _as_report(parse[k][1], result)),
        )
    else:
        for i, path, codes, options, source in parse:
            done(i, _lint_parsed(path, codes, options, mode, source))

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
    return reports  # type: ignore[return-value]


def _lint_gated(path: Path, codes: Any, options: Any, mode: Mode, source: Optional[SourceFile]) -> FileReport:
    """``lint_file`` of a file that may or may not need parsing, in a worker."""
    from gradlint.engine import needs_parse

    if source is not None and not needs_parse(source.text, codes):
        return lint_file(path, codes, options, mode, source)
    return _lint_parsed(path, codes, options, mode, source)


def _lint_parsed(*args: Any) -> FileReport:
    """``lint_file(*args)`` for a file that is parsed."""
    with _one_file():
        return lint_file(*args)


def _lint_with_index(index: project.Project, *args: Any) -> FileReport:
    """``_lint_parsed(*args)`` in a worker that did not inherit the run's project index."""
    project.use(index)
    try:
        return _lint_parsed(*args)
    finally:
        project.use(None)


@contextmanager
def _one_file() -> Iterator[None]:
    """The cyclic garbage collector paused while one file is analysed, then one
    collection of what that file left. A file's syntax tree and semantic model
    are hundreds of thousands of objects that live exactly as long as its check:
    the collections their allocation would set off walk them again and again
    (an eighth of a cold run's time) to find nothing dead, and the one
    afterwards walks them once and frees the model's reference cycles."""
    if not gc.isenabled():  # someone else manages the collector
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)


def _project_index(
    files: Sequence[Path], cache: Optional[Any], jobs: int = 1
) -> Tuple[project.Project, Dict[int, Document]]:
    """The project index of the run (``semantic.project``): a summary of each of
    ``files`` and, when they are few, of the other files of their directories and
    packages; summaries come from ``cache`` where it has them. Also the documents
    read on the way, by their index in ``files``, for the checks to reuse."""
    paths: List[Path] = list(files)
    if len(paths) <= FEW_FILES:
        paths += [Path(p) for p in project.extra_files(paths)]
    summaries: Dict[str, Any] = {}
    hashes: Dict[str, str] = {}
    read: Dict[int, Document] = {}
    # Files to summarise: (display name, path, document, stat)
    pending: List[Tuple[str, Path, Document, Optional[os.stat_result]]] = []
    for k, path in enumerate(paths):
        if path.suffix != ".py":
            continue  # notebooks and stdin are checked, not imported
        name = display_path(path)
        st: Optional[os.stat_result] = None
        if cache is not None:
            try:
                st = os.stat(path)
            except OSError:
                continue
            found, summary, known = cache.lookup_summary(path, st)
            if found:
                if summary is not None:
                    summaries[name], hashes[name] = summary, known
                continue
        doc = _read(path)
        if doc is None:
            continue
        if k < len(files):
            read[k] = doc
        found, summary, known = cache.lookup_summary(path, st, doc.digest) if cache is not None else (False, None, "")  # type: ignore[arg-type]
        if found:
            if summary is not None:
                summaries[name], hashes[name] = summary, known
            continue
        pending.append((name, path, doc, st))
    for (name, path, doc, st), summary in zip(pending, _summarize(pending, jobs)):
        if cache is not None and st is not None and isinstance(doc, SourceFile):
            cache.store_summary(path, doc.digest, st, summary)
        if summary is not None:
            summaries[name] = summary
    return project.Project(summaries, {p: h for p, h in hashes.items() if h}), read


# The files being summarised, for forked workers to read instead of being sent them.
_PENDING: List[Tuple[str, str]] = []
# Files per task: the summary of one takes about 2 ms, a task's round trip more than that.
_SUMMARY_CHUNK = 64


def _summarize(pending: Sequence[Tuple[str, Path, Document, Any]], jobs: int) -> List[Optional[dict]]:
    """``project.summarize`` of each pending file, in order: in forked workers when
    there are enough (the summaries are Python's ``ast`` over every file of a code
    base, a fair part of a cold run's time before any file can be checked)."""
    from gradlint import parallel

    texts = [(name, doc.text) for name, _, doc, _ in pending]
    if jobs <= 1 or len(texts) < 2 * _SUMMARY_CHUNK or not parallel.forks():
        return [_summary(name, text) for name, text in texts]
    _PENDING[:] = texts
    try:
        chunks = [(start, min(start + _SUMMARY_CHUNK, len(texts))) for start in range(0, len(texts), _SUMMARY_CHUNK)]
        results = parallel.map_ordered(_summarize_chunk, chunks, jobs)
    finally:
        _PENDING.clear()
    out: List[Optional[dict]] = []
    for (start, end), result in zip(chunks, results):
        if isinstance(result, parallel.WorkerDied):
            # Not tried again here, where it could take the run down: these files
            # give no facts to the others, and are checked as any other.
            out.extend([None] * (end - start))
        elif isinstance(result, BaseException):
            out.extend(project.summarize(*texts[k]) for k in range(start, end))  # raises here as it would have
        else:
            out.extend(result)
    return out


def _summarize_chunk(start: int, end: int) -> List[Optional[dict]]:
    return [_summary(*_PENDING[k]) for k in range(start, end)]


def _summary(name: str, text: str) -> Optional[dict]:
    with _one_file():
        return project.summarize(name, text)


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
