"""A run's session: its settings, its project index and its cache, passed explicitly.

Every entry point builds one and hands it down to ``gradlint.checking``:
``gradlint check`` on paths and on stdin, ``--add-noqa``, ``gradlint migrate``,
``gradlint verify``, the language server and the flake8 plugin. What a file's
rules see of the other files of its project (``gradlint.semantic.project``)
is the session's index and nothing else: there is no index in force
globally, so two entry points given the same files cannot disagree about it.

Which files the index covers: the files of the run and, for a run of few
files (a pre-commit hook, an editor, stdin), the other ``.py`` files of their
directories and of the packages above them, and the project files they import
(``semantic.neighbours``).
``texts`` gives the text of a file that is not (or not yet) what is on disk:
stdin's, an editor's unsaved buffer.

LibCST is not imported here: a run answered from the cache never needs it.
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from gradlint.config import Settings
from gradlint.files import Document, SourceFile, read_document
from gradlint.options import LintSettings
from gradlint.semantic import neighbours, project

# A run of at most this many files (a pre-commit hook, an editor) also indexes
# the files around them (``semantic.neighbours``).
FEW_FILES = 16
# Files per task: the summary of one takes about 2 ms, a task's round trip more than that.
_SUMMARY_CHUNK = 64
# Characters to summarise (about 4,000 lines) from which a run that has other work to
# do meanwhile makes the summaries in a forked worker: below, the fork costs more.
BESIDE_TEXT = 150_000

class SummaryMemo:
    """What index building keeps between sessions of one process that has no
    results cache (the flake8 plugin, the language server): each file's summary
    by its identity and version (device, inode, mtime, size), and each index
    built from unchanged files, so that the files of one directory, checked one
    after another, share one index and the answers it has already given."""

    def __init__(self) -> None:
        self.summaries: Dict[Tuple[int, int, int, int], Optional[dict]] = {}
        self.projects: Dict[Tuple[Tuple[str, Tuple[int, int, int, int]], ...], project.Project] = {}


@dataclass(frozen=True)
class Session:
    """What every check of a run shares: the configuration, the project index
    (None: no cross-file facts) and the results cache (None: none)."""

    settings: Settings
    index: Optional[project.Project] = None
    cache: Optional[Any] = None

    @classmethod
    def of(cls, settings: Union["Session", Settings]) -> "Session":
        return settings if isinstance(settings, Session) else cls(settings)

    def indexed(
        self,
        files: Sequence[Path],
        *,
        jobs: int = 1,
        texts: Optional[Mapping[str, str]] = None,
        memo: Optional[SummaryMemo] = None,
    ) -> "Session":
        """This session with the index of ``files`` (see the module's docstring)."""
        index, _ = index_files(files, self.cache, jobs, texts=texts, memo=memo)
        return replace(self, index=index)

    def rules(
        self,
        path: Union[str, Path],
        *,
        extra_codes: FrozenSet[str] = frozenset(),
        line_noqa: bool = True,
        defer_fixes: bool = False,
    ) -> LintSettings:
        """The rules and options that govern ``path``, with the session's index
        (ConfigError when its configuration is broken)."""
        codes, options = self.settings.codes_for(Path(path))
        return LintSettings(codes | extra_codes, options, line_noqa=line_noqa, defer_fixes=defer_fixes, index=self.index)


@contextmanager
def one_file(collect: bool = True) -> Iterator[None]:
    """The cyclic garbage collector paused while one file is analysed, then one
    collection of what that file left. A file's syntax tree and semantic model
    are hundreds of thousands of objects that live exactly as long as its check:
    the collections their allocation would set off walk them again and again
    (an eighth of a cold run's time) to find nothing dead, and the one
    afterwards walks them once and frees the model's reference cycles.
    ``collect=False``: not that one, where the process ends without freeing
    anything once the file is reported (the console script's last file)."""
    if not gc.isenabled():  # someone else manages the collector
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        if collect:
            gc.collect(0)


def display_path(path: Path) -> str:
    return os.path.normpath(str(path))


def index_files(
    files: Sequence[Path],
    cache: Optional[Any],
    jobs: int = 1,
    *,
    texts: Optional[Mapping[str, str]] = None,
    memo: Optional[SummaryMemo] = None,
    meanwhile: Optional[Callable[[Dict[int, Document]], None]] = None,
) -> Tuple[project.Project, Dict[int, Document]]:
    """The project index of a run over ``files``: a summary of each of them and,
    when they are few, of the other files of their directories and packages;
    summaries come from ``cache`` (or ``memo``) where it has them. Also the
    documents read on the way, by their index in ``files``, for the checks to reuse.
    ``meanwhile``: work of the run that needs no index (given those documents), done
    here while a forked worker makes the summaries, where there is one to fork and
    enough to summarise; else not called."""
    paths: List[Path] = list(files)
    if len(paths) <= FEW_FILES:
        paths += [Path(p) for p in neighbours.extra_files(paths)]
    given = {display_path(Path(p)): text for p, text in (texts or {}).items()}
    summaries: Dict[str, Any] = {}
    hashes: Dict[str, str] = {}
    read: Dict[int, Document] = {}
    # Files to summarise: (display name, path, text, document, stat)
    pending: List[Tuple[str, Path, str, Optional[Document], Optional[os.stat_result]]] = []
    memo_keys: Dict[str, Tuple[int, int, int, int]] = {}
    # Whether the index is made of files on disk only, each known by its memo key.
    reusable = memo is not None and not given
    for k, path in enumerate(paths):
        if path.suffix != ".py":
            continue  # notebooks are checked, not imported
        name = display_path(path)
        if name in given:
            pending.append((name, path, given[name], None, None))
            continue
        st: Optional[os.stat_result] = None
        if cache is not None or memo is not None:
            try:
                st = os.stat(path)
            except OSError:
                reusable = False
                continue
        if cache is not None:
            found, summary, known = cache.lookup_summary(path, st)
            if found:
                if summary is not None:
                    summaries[name], hashes[name] = summary, known
                continue
        elif memo is not None and st is not None:
            key = memo_keys[name] = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
            if key in memo.summaries:
                if memo.summaries[key] is not None:
                    summaries[name] = memo.summaries[key]
                continue
        doc = _read(path)
        if doc is None:
            reusable = False
            continue
        if k < len(files):
            read[k] = doc
        found, summary, known = cache.lookup_summary(path, st, doc.digest) if cache is not None else (False, None, "")
        if found:
            if summary is not None:
                summaries[name], hashes[name] = summary, known
            continue
        pending.append((name, path, doc.text, doc, st))
    beside = (lambda: meanwhile(read)) if meanwhile is not None else None
    for (name, path, _, doc, st), summary in zip(pending, _summarize(pending, jobs, beside)):
        if cache is not None and st is not None and isinstance(doc, SourceFile):
            cache.store_summary(path, doc.digest, st, summary)
        if memo is not None and name in memo_keys:
            memo.summaries[memo_keys[name]] = summary
        if summary is not None:
            summaries[name] = summary
    if reusable and memo is not None:
        whole = tuple(sorted(memo_keys.items()))
        found = memo.projects.get(whole)
        if found is None:
            found = memo.projects[whole] = project.Project(summaries)
        return found, read
    return project.Project(summaries, {p: h for p, h in hashes.items() if h}), read


# The files being summarised, for forked workers to read instead of being sent them.
_PENDING: List[Tuple[str, str]] = []


def _summarize(
    pending: Sequence[Tuple[str, Path, str, Any, Any]], jobs: int, meanwhile: Optional[Callable[[], None]] = None
) -> List[Optional[dict]]:
    """``project.summarize`` of each pending file, in order: in forked workers when
    there are enough (the summaries are Python's ``ast`` over every file of a code
    base, a fair part of a cold run's time before any file can be checked), or in
    one beside ``meanwhile`` when there is that much to summarise (a long file: its
    summary and its parse, in ``meanwhile``, each take a second or more)."""
    from gradlint import parallel

    texts = [(name, text) for name, _, text, _, _ in pending]
    if jobs <= 1 or len(texts) < 2 * _SUMMARY_CHUNK or not parallel.forks():
        if meanwhile is None or jobs <= 1 or sum(len(t) for _, t in texts) < BESIDE_TEXT or not parallel.forks():
            return [_summary(name, text) for name, text in texts]
        _PENDING[:] = texts
        try:
            result = parallel.beside(_summarize_chunk, (0, len(texts)), meanwhile)
        finally:
            _PENDING.clear()
        if isinstance(result, parallel.WorkerDied):
            return [None] * len(texts)  # as for a chunk below
        if isinstance(result, BaseException):
            return [project.summarize(*t) for t in texts]  # raises here as it would have
        return result
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
    with one_file():
        return project.summarize(name, text)


def _read(path: Path) -> Optional[Document]:
    try:
        return read_document(path)
    except Exception:  # ReadError, or a bug: the check of the file reads it again and reports either
        return None
