"""Finding, reading and (atomically) writing source files.

Reading keeps what writing must restore: the encoding (PEP 263 cookie or
UTF-8), a UTF-8 BOM, the exact newlines (the text is decoded from bytes, never
through universal newlines) and the file's permission bits.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from gradlint.config import Settings, excludes, matches

SOURCE_SUFFIXES = (".py",)


class ReadError(Exception):
    """A file that cannot be read or decoded; the message is one line."""


class WriteError(Exception):
    """A fix that was not written; the file is left as it was."""


class MissingPathError(Exception):
    pass


@dataclass(frozen=True)
class SourceFile:
    path: Path
    text: str
    encoding: str
    digest: str
    mtime_ns: int
    size: int


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def discover(paths: Sequence[str], settings: Settings, force_exclude: bool = False) -> List[Path]:
    """The source files under ``paths``, sorted, each once.

    Files named explicitly are checked whatever their suffix, and even when an
    exclude pattern matches them, unless ``force_exclude`` (as pre-commit, which
    passes every staged file, wants).
    """
    found: List[Path] = []
    seen: Set[str] = set()

    def add(p: Path) -> None:
        key = os.path.normpath(str(p))
        if key not in seen:
            seen.add(key)
            found.append(Path(key))

    def excluded(p: Path, ancestors: bool) -> bool:
        cfg = settings.config_for(p)
        return matches(excludes(cfg), p, cfg.root, ancestors=ancestors)

    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            raise MissingPathError(f"{raw}: No such file or directory")
        if force_exclude and excluded(path, ancestors=True):
            continue
        if path.is_dir():
            for file in _walk(path, settings):
                add(file)
        else:
            add(path)
    found.sort(key=str)
    return found


def _walk(top: Path, settings: Settings) -> Iterator[Path]:
    # followlinks=False: a symlinked directory loop cannot make the walk endless.
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        cfg = settings.config_for_dir(Path(dirpath))
        patterns = excludes(cfg)
        keep = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            if matches(patterns, Path(full), cfg.root) or _is_virtualenv(full):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                full = Path(dirpath, name)
                if not matches(patterns, full, cfg.root):
                    yield full


def decode(data: bytes) -> Tuple[str, str]:
    """(text, encoding) of Python source bytes, honouring a BOM and a coding cookie."""
    if b"\x00" in data:
        raise ReadError("binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        message = str(exc.args[0]) if exc.args else str(exc)
        if message.startswith("unknown encoding"):
            raise ReadError(f"invalid encoding declaration: {message}") from None
        # Undecodable bytes in the first two lines: let the decode below say where.
        encoding = "utf-8"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise ReadError(
            f"cannot decode as {name}: invalid byte 0x{data[exc.start]:02x} on line {line}"
        ) from None


def read_source(path: Path) -> SourceFile:
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise ReadError("is a directory")
            data = fh.read()
    except OSError as exc:
        raise ReadError(f"cannot read file: {exc.strerror or exc}") from None
    text, encoding = decode(data)
    return SourceFile(path, text, encoding, hashlib.sha256(data).hexdigest(), st.st_mtime_ns, st.st_size)


def write_source(original: SourceFile, new_text: str) -> None:
    """Replace the file's content atomically with ``new_text``, encoded as it was read.

    Refuses (WriteError) when the file changed on disk since it was read, or is
    not writable; in every failure the original file is left untouched.
    """
    target = Path(os.path.realpath(original.path))
    try:
        data = new_text.encode(original.encoding)
    except UnicodeEncodeError as exc:
        raise WriteError(f"fixed code cannot be encoded as {original.encoding}: {exc.reason}") from None
    try:
        st = os.stat(target)
        with open(target, "rb") as fh:
            current = fh.read()
    except OSError as exc:
        raise WriteError(f"not written: {exc.strerror or exc}") from None
    if hashlib.sha256(current).hexdigest() != original.digest:
        raise WriteError("changed on disk while gradlint was running; not written")
    if not os.access(target, os.W_OK):
        raise WriteError("file is read-only; not written")
    directory = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gradlint.tmp", dir=directory)
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
        os.replace(tmp, target)
    except BaseException as exc:  # Ctrl-C too: the temporary file never stays behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WriteError(f"not written: {exc.strerror or exc}") from None
        raise
