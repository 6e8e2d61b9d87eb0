"""Finding, reading and (atomically) writing source files.

Reading keeps what writing must restore: the encoding (PEP 263 cookie or
UTF-8), a UTF-8 BOM, the exact newlines (the text is decoded from bytes, never
through universal newlines) and the file's permission bits.

What the runner reads is a *document*: a ``.py`` file (:class:`SourceFile`) or
a Jupyter notebook (:class:`gradlint.notebook.Notebook`). Both give the engine
one Python text and answer the same questions about it: where a position of
that text is for the user (``locate``: notebooks add the cell), whether a fixed
text can be written back (``check_fix``; ``fix_fits`` answers it for one fix,
cheaply when it can), a fix's text edits (``fix_edits``),
a diff (``diff``), the bytes to write (``render``), and the parts that were
left out of the text because they could not be read (``problems``).
"""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

from gradlint.config import Settings, excludes, matches
from gradlint.errors import ReadError, WriteError  # re-exported: callers catch them from here

if TYPE_CHECKING:  # notebooks are imported only when one is read; fixes (LibCST) only to fix
    from gradlint.fixes import Fix
    from gradlint.results import TextEdit
    from gradlint.notebook import Notebook

SOURCE_SUFFIXES = (".py", ".ipynb")
NOTEBOOK_SUFFIX = ".ipynb"


class MissingPathError(Exception):
    pass


@dataclass(frozen=True)
class SourceFile:
    """A ``.py`` file: its text is what the engine checks, positions are its own."""

    path: Path
    text: str
    encoding: str
    digest: str
    mtime_ns: int
    size: int

    # Any fix that parses can be written; fix_edits need only be computed for output.
    checks_fixes = False
    problems: Tuple = ()
    # How the file was read where that is not what its cookie says (shown, not a finding).
    notes: Tuple[str, ...] = ()

    def locate(self, text: str, row: int, column: int) -> Tuple[Optional[int], int, int]:
        return None, row, column

    def cell_texts(self, text: str) -> Optional[Dict[int, str]]:
        return None

    def check_fix(self, old: str, new: str) -> Optional[str]:
        return None

    def fix_fits(self, text: str, fix: "Fix", render: Callable[[], str]) -> bool:
        return True

    def fix_edits(self, old: str, new: str) -> Optional[Tuple["TextEdit", ...]]:
        from gradlint.text_diff import text_edits

        return tuple(text_edits(old, new))

    def render(self, new: str) -> bytes:
        try:
            return new.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise WriteError(f"fixed code cannot be encoded as {self.encoding}: {exc.reason}") from None

    def diff(self, new: str, label: str) -> str:
        from gradlint.text_diff import unified_diff

        return unified_diff(label, self.text, new)


# A SourceFile or a gradlint.notebook.Notebook (imported only when a notebook is read).
Document = Union[SourceFile, "Notebook"]


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def discover(paths: Sequence[str], settings: Settings, force_exclude: bool = False, missing_ok: bool = False) -> List[Path]:
    """The source files under ``paths``, sorted, each once.

    Files named explicitly are checked whatever their suffix, and even when an
    exclude pattern matches them, unless ``force_exclude`` (as pre-commit, which
    passes every staged file, wants). A path that does not exist raises
    MissingPathError, or with ``missing_ok`` is kept as a file, for reading it
    to report that it cannot be read (as Ruff's E902), as a walk does with a
    file it cannot read.
    """
    found: List[Path] = []
    seen: Set[str] = set()

    def add(p: Path) -> None:
        key = os.path.normpath(str(p))
        if key not in seen:
            seen.add(key)
            found.append(Path(key))

    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path) and not missing_ok:
            raise MissingPathError(f"{raw}: No such file or directory")
        if force_exclude and is_excluded(path, settings):
            continue
        if path.is_dir():
            for file in _walk(path, settings):
                add(file)
        else:
            add(path)
    found.sort(key=str)
    return found


def is_excluded(path: Path, settings: Settings) -> bool:
    """Whether an exclude pattern matches ``path`` or one of its directories (``--force-exclude``)."""
    cfg = settings.config_for(path)
    return matches(excludes(cfg), path, cfg.root, ancestors=True)


def _walk(top: Path, settings: Settings) -> Iterator[Path]:
    # A directory that cannot be listed is yielded as it is: reading it then says
    # why ("cannot read directory: Permission denied") instead of skipping it unseen.
    unlisted: List[str] = []
    gitignores = _GitIgnores(top) if settings.respects_gitignore(top) else None
    # followlinks=False: a symlinked directory loop cannot make the walk endless.
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False, onerror=lambda exc: unlisted.append(exc.filename)):
        for directory in unlisted:
            yield Path(directory)
        unlisted.clear()
        cfg = settings.config_for_dir(Path(dirpath))
        patterns = excludes(cfg)
        ignored = gitignores.enter(dirpath) if gitignores is not None else None
        keep = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            if matches(patterns, Path(full), cfg.root) or _is_virtualenv(full) or (ignored is not None and ignored(full, True)):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                file = Path(dirpath, name)
                if not matches(patterns, file, cfg.root) and not (ignored is not None and ignored(str(file), False)):
                    yield file
    for directory in unlisted:
        yield Path(directory)


def _git_root(directory: str) -> Optional[str]:
    cur = directory
    while True:
        if os.path.exists(os.path.join(cur, ".git")):  # a directory, or a file in a worktree or submodule
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


class _GitIgnores:
    """What git ignores, for a walk from ``top``: the ``.gitignore`` of every
    directory walked, and, in a git work tree, those of the directories between
    its root and ``top`` and ``.git/info/exclude``. As in git, a deeper file's
    patterns (a ``!`` negation included) override a shallower one's, and an
    ignored directory is not entered, so nothing under it comes back. A
    ``.gitignore`` outside any git work tree counts too, as in Ruff. The
    patterns are matched by ``pathspec``, which follows git's rules (anchoring,
    ``**``, trailing ``/`` for directories, escapes)."""

    # (directory the patterns are relative to, compiled patterns), shallowest first.
    Chain = Tuple[Tuple[str, Any], ...]

    def __init__(self, top: Path) -> None:
        start = os.path.abspath(top)
        chain: List[Tuple[str, Any]] = []
        root = _git_root(start)
        if root is not None:
            exclude = self._load(os.path.join(root, ".git", "info", "exclude"))
            if exclude is not None:
                chain.append((root, exclude))
            # The directories above ``top`` in the work tree, shallowest first (``top``'s own is read on entering it).
            above: List[str] = []
            cur = os.path.dirname(start) if start != root else None
            while cur is not None and (cur == root or cur.startswith(root.rstrip(os.sep) + os.sep)):
                above.append(cur)
                cur = None if cur == root else os.path.dirname(cur)
            for directory in reversed(above):
                spec = self._load(os.path.join(directory, ".gitignore"))
                if spec is not None:
                    chain.append((directory, spec))
        self._chains: Dict[str, "_GitIgnores.Chain"] = {}
        self._outer: "_GitIgnores.Chain" = tuple(chain)
        # A directory named for the walk is walked even when git ignores it, as ripgrep
        # and Ruff do: the patterns that ignore ``top`` itself would ignore everything
        # under it, so they are set aside; the others (``*.pyc``, ``build/``) still apply.
        self._set_aside: Dict[str, Tuple[Any, ...]] = {}
        for base, spec in chain:
            rel = os.path.relpath(start, base).replace(os.sep, "/") + "/"
            hits = tuple(p for p in spec.patterns if p.include and p.match_file(rel) is not None)
            if hits:
                self._set_aside[base] = hits

    @staticmethod
    def _load(path: str) -> Optional[Any]:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:  # none, or unreadable: git goes on without it too
            return None
        if not any(line.strip() and not line.startswith("#") for line in lines):
            return None
        import pathspec  # only for walks that meet a .gitignore

        return pathspec.GitIgnoreSpec.from_lines(lines)

    def enter(self, dirpath: str) -> Optional[Callable[[str, bool], bool]]:
        """A test of whether a file or directory of ``dirpath`` is ignored (None: nothing can be)."""
        full = os.path.abspath(dirpath)
        chain = self._chains.get(os.path.dirname(full), self._outer)
        spec = self._load(os.path.join(full, ".gitignore"))
        if spec is not None:
            chain = chain + ((full, spec),)
        self._chains[full] = chain
        if not chain:
            return None

        set_aside = self._set_aside

        def ignored(path: str, is_dir: bool) -> bool:
            name = os.path.abspath(path)
            for base, patterns in reversed(chain):
                rel = os.path.relpath(name, base).replace(os.sep, "/") + ("/" if is_dir else "")
                aside = set_aside.get(base)
                verdict = patterns.check_file(rel).include if aside is None else _last_verdict(patterns, aside, rel)
                if verdict is not None:
                    return verdict
            return False

        return ignored


def _last_verdict(spec: Any, aside: Tuple[Any, ...], rel: str) -> Optional[bool]:
    """git's verdict on ``rel`` (the last pattern that matches it wins), leaving out the patterns ``aside``."""
    verdict: Optional[bool] = None
    for pattern in spec.patterns:
        if pattern.include is not None and pattern not in aside and pattern.match_file(rel) is not None:
            verdict = pattern.include
    return verdict


def decode(data: bytes) -> Tuple[str, str]:
    """(text, encoding) of Python source bytes, honouring a BOM and a coding cookie."""
    text, encoding, _ = decode_with_note(data)
    return text, encoding


def decode_with_note(data: bytes) -> Tuple[str, str, Optional[str]]:
    """``decode``, and a note on how the text was read when the cookie was not obeyed.

    A cookie naming a codec this Python does not have (``# -*- coding:
    future_fstrings -*-``) names a source transformer that a package registers
    at import time, not a byte encoding: the source under it is UTF-8 (the
    transformer decodes it so), so it is read, and written back, as UTF-8 with
    the cookie line kept as it is.
    """
    if b"\x00" in data:
        raise ReadError("binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        message = str(exc.args[0]) if exc.args else str(exc)
        if message.startswith("unknown encoding"):
            codec = message.partition(":")[2].strip()
            try:
                text = data.decode("utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8")
            except UnicodeDecodeError:
                raise ReadError(f"invalid encoding declaration: {message}, and the file is not UTF-8") from None
            note = (
                f"the coding cookie names `{codec}`, a codec this Python does not have (a source transformer "
                "installed by a package, not a byte encoding): read and checked as UTF-8"
            )
            return text, "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8", note
        if message.startswith("encoding problem"):
            raise ReadError("invalid encoding declaration: a UTF-8 byte order mark, and a coding cookie that is not UTF-8") from None
        # Undecodable bytes in the first two lines: let the decode below say where.
        encoding = "utf-8"
    try:
        return data.decode(encoding), encoding, None
    except LookupError:  # a codec that is not text to text (``# coding: rot13``); Python refuses it too
        raise ReadError(f"invalid encoding declaration: {encoding!r} is not a text encoding") from None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise ReadError(
            f"cannot decode as {name}: invalid byte 0x{data[exc.start]:02x} on line {line}"
        ) from None


# Larger files are not read at all: gradlint parses at most 4 MiB of Python
# (gradlint.parsing), and a notebook this size is mostly images.
MAX_READ_BYTES = 256 << 20

_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _read_bytes(path: Path) -> Tuple[bytes, os.stat_result]:
    """The bytes of the regular file at ``path`` (ReadError with a one-line message)."""
    try:
        # O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused below).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise ReadError(_unreadable(path, exc)) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ReadError(_directory(path))
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a file")
            raise ReadError(f"not a regular file ({kind})")
        if st.st_size > MAX_READ_BYTES:
            raise ReadError(f"file too large to read ({st.st_size / (1 << 20):.0f} MiB; gradlint reads files up to {MAX_READ_BYTES >> 20} MiB)")
        with os.fdopen(fd, "rb") as fh:
            fd = -1  # closed with fh
            return fh.read(), st
    except OSError as exc:
        raise ReadError(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        if fd != -1:
            os.close(fd)


def _unreadable(path: Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        return "broken symbolic link (its target does not exist)"
    if os.path.isdir(path):
        return _directory(path)
    return f"cannot read file: {exc.strerror or exc}"


def _directory(path: Path) -> str:
    # Directories reach here when a walk could not list them (see _walk).
    try:
        os.scandir(path).close()
    except OSError as exc:
        return f"cannot read directory: {exc.strerror or exc}"
    return "is a directory"


def read_source(path: Path) -> SourceFile:
    data, st = _read_bytes(path)
    text, encoding, note = decode_with_note(data)
    return SourceFile(path, text, encoding, hashlib.sha256(data).hexdigest(), st.st_mtime_ns, st.st_size, notes=(note,) if note else ())


def is_notebook(path: Path) -> bool:
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def read_document(path: Path) -> "Document":
    """The ``.py`` file or notebook at ``path`` (ReadError with a one-line message)."""
    if not is_notebook(path):
        return read_source(path)
    from gradlint.notebook import Notebook, NotebookError

    data, st = _read_bytes(path)
    try:
        return Notebook(path, data, st.st_mtime_ns, st.st_size)
    except NotebookError as exc:
        raise ReadError(str(exc)) from None


def write_source(original: "Document", new_text: str) -> None:
    """Replace the document's file atomically with ``new_text`` (the engine's text),
    rendered as it was read: encoding for a file, cells for a notebook.

    Refuses (WriteError) when the file changed on disk since it was read (checked
    before anything is written, and again just before the rename), is read-only
    (no write permission bit, even for root), has other hard links (a rename
    would detach them), or its encoding does not give back its bytes; in every
    failure the original file is left untouched.
    """
    target = Path(os.path.realpath(original.path))
    data = original.render(new_text)
    try:
        st = os.stat(target)
    except OSError as exc:
        raise WriteError(_vanished(exc)) from None
    if not stat.S_IMODE(st.st_mode) & 0o222 or not os.access(target, os.W_OK):
        raise WriteError("file is read-only; not written")
    if st.st_nlink > 1:
        raise WriteError(f"file has {st.st_nlink} hard links, which replacing it would detach; not written")
    current = _unchanged(original, target)
    if isinstance(original, SourceFile) and _encodes_to(original.text, original.encoding) != current:
        raise WriteError(f"its encoding ({original.encoding}) does not give back its bytes; not written")
    import tempfile  # with shutil and random: only for a run that writes a file

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gradlint.tmp", dir=target.parent)
    except OSError as exc:
        raise WriteError(f"not written: cannot create a file beside it: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except (OSError, AttributeError):
            pass  # not permitted for other users' files; permissions still kept
        # Again, so that an edit saved while the new text was written is not lost.
        _unchanged(original, target)
        os.replace(tmp, target)
    except BaseException as exc:  # Ctrl-C too: the temporary file never stays behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WriteError(f"not written: {exc.strerror or exc}") from None
        raise  # a WriteError from the second check, or Ctrl-C


def _unchanged(original: "Document", target: Path) -> bytes:
    """The file's bytes, if they are still those that were read; else WriteError."""
    try:
        current, _ = _read_bytes(target)
    except ReadError as exc:
        if not os.path.lexists(target):
            raise WriteError("deleted while gradlint was running; not written") from None
        raise WriteError(f"not written: {exc}") from None
    if hashlib.sha256(current).hexdigest() != original.digest:
        raise WriteError("changed on disk while gradlint was running; not written")
    return current


def _vanished(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "deleted while gradlint was running; not written"
    return f"not written: {exc.strerror or exc}"


def _encodes_to(text: str, encoding: str) -> Optional[bytes]:
    try:
        return text.encode(encoding)
    except (UnicodeError, LookupError):
        return None
