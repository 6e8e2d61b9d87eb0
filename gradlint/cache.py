"""The results cache in ``.gradlint_cache/``: a file's findings are not computed
again while nothing they depend on has changed.

An entry is valid for one file path, one content (SHA-256 of its bytes), one
effective configuration for that file (the rule codes, the rule options and
whether fix edits were computed) and one build of gradlint: the version and a
hash of gradlint's own code and catalog, so that editing a rule in a checkout
invalidates every entry too. The stat data of the file (mtime, ctime, size,
inode) lets a warm run skip reading files that have not been touched; a file
touched within two seconds of being cached is hashed again next time, since
its timestamp cannot tell a later change apart (git's "racily clean" entries).

The layout follows Ruff's::

    .gradlint_cache/
        CACHEDIR.TAG             backup tools skip the directory
        .gitignore               "*": never committed
        0.1.0/<build>.json       one file per gradlint build

The whole cache of a build is one JSON file, read once and written once per
run: thousands of small entry files would cost a warm run more in opening
them than the checks they save. It is written to a temporary file that
replaces the old one (``os.replace``), so a reader never sees half a file;
concurrent runs each merge their entries into what is on disk at the time
they save, and the last one wins whatever the others added in between, which
costs only a recomputation. JSON rather than pickle: the cache directory sits
in the checked project, and loading it must not be able to run code. Anything
unreadable, malformed or of another schema is ignored (and rewritten); the
cache never fails a run: when it cannot be written, the run goes on without.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from gradlint import __version__, catalog
from gradlint.options import RuleOptions
from gradlint.results import Diagnostic, FixInfo, TextEdit
from gradlint.semantic import project

CACHE_DIR_NAME = ".gradlint_cache"
SCHEMA = 1
# Entries not used for this long are dropped when the cache is saved.
MAX_UNUSED_SECONDS = 30 * 24 * 3600
# A file modified this close to the moment it was read may change again
# without its timestamp showing it: such entries are checked by content.
RACY_NS = 2_000_000_000

CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by gradlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)

Stat = Tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> Stat:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


@functools.lru_cache(maxsize=256)
def settings_key(codes: FrozenSet[str], options: RuleOptions, edits: bool) -> str:
    """What, besides the file, decides its findings."""
    text = json.dumps([sorted(codes), dataclasses.asdict(options), edits], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _build_id() -> str:
    """A hash of gradlint's code and catalog: a change to either invalidates the cache."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    files = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    for item in sorted(catalog.files().iterdir(), key=lambda i: i.name):
        if item.name.endswith(".toml"):
            digest.update(item.name.encode())
            digest.update(item.read_bytes())
    return digest.hexdigest()[:16]


class Cache:
    """The cache of one run: read at the start, updated in memory, saved at the end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / __version__ / f"{_build_id()}.json"
        self._entries: Dict[str, Dict[str, Any]] = self._read()
        self._changed: Dict[str, Dict[str, Any]] = {}
        self._now = time.time_ns()

    def _read(self) -> Dict[str, Dict[str, Any]]:
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):  # missing, unreadable, or not JSON: start afresh
            return {}
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("entries"), dict):
            return {}
        return data["entries"]

    @staticmethod
    def key(path: Path, settings: str) -> str:
        return f"{os.path.abspath(path)}\0{settings}"

    def lookup_stat(self, key: str, st: os.stat_result) -> Optional[List[Any]]:
        """The diagnostics cached for ``key``, if the file has not been touched since."""
        entry = self._entries.get(key)
        if not isinstance(entry, dict) or entry.get("stat") != list(stat_key(st)):
            return None
        return self._use(key, entry)

    def lookup_digest(self, key: str, digest: str, st: os.stat_result) -> Optional[List[Any]]:
        """The diagnostics cached for ``key``, if the file still has the same content."""
        entry = self._entries.get(key)
        if not isinstance(entry, dict) or entry.get("digest") != digest:
            return None
        diagnostics = self._use(key, entry)
        if diagnostics is not None:  # touched, not changed: remember the new timestamps
            self._changed[key] = dict(entry, stat=self._trusted_stat(st), seen=self._now // 10**9)
        return diagnostics

    def _use(self, key: str, entry: Dict[str, Any]) -> Optional[List[Any]]:
        diagnostics = entry.get("diagnostics")
        if not isinstance(diagnostics, list) or not _unchanged(entry.get("deps", ())):
            return None
        if self._now // 10**9 - entry.get("seen", 0) > 24 * 3600:
            self._changed[key] = dict(entry, seen=self._now // 10**9)
        return diagnostics

    def _trusted_stat(self, st: os.stat_result) -> Optional[List[int]]:
        if max(st.st_mtime_ns, st.st_ctime_ns) > self._now - RACY_NS:
            return None
        return list(stat_key(st))

    def store(
        self, key: str, digest: str, st: os.stat_result, diagnostics: List[Any], deps: Sequence[Tuple[str, int, int]] = ()
    ) -> None:
        """``deps``: other files the findings depend on, as ``(path, mtime_ns, size)``
        (``(-1, -1)``: absent); the entry holds while they stay so. A file among them
        changed too recently for its stat to tell a later change is not stored."""
        if any(m > self._now - RACY_NS for _, m, _ in deps):
            return
        self._changed[key] = {
            "digest": digest,
            "stat": self._trusted_stat(st),
            "seen": self._now // 10**9,
            "diagnostics": diagnostics,
            **({"deps": [list(d) for d in deps]} if deps else {}),
        }

    # -- project index summaries (``gradlint.semantic.project``) --------------------------

    @staticmethod
    def summary_key(path: Path) -> str:
        return f"index\0{os.path.abspath(path)}"

    def lookup_summary(self, path: Path, st: os.stat_result, digest: Optional[str] = None) -> Tuple[bool, Any, str]:
        """(found, the index summary cached for ``path``, its ``summary_hash``): by the
        file's stat data, or by ``digest`` (its content's SHA-256) when given."""
        key = self.summary_key(path)
        entry = self._entries.get(key)
        if not isinstance(entry, dict) or "summary" not in entry or not project.valid(entry["summary"]):
            return False, None, ""
        if digest is None:
            if entry.get("stat") != list(stat_key(st)):
                return False, None, ""
        elif entry.get("digest") != digest:
            return False, None, ""
        elif entry.get("stat") != self._trusted_stat(st):
            self._changed[key] = dict(entry, stat=self._trusted_stat(st), seen=self._now // 10**9)
        if self._now // 10**9 - entry.get("seen", 0) > 24 * 3600:
            self._changed[key] = dict(entry, seen=self._now // 10**9)
        found = entry.get("hash")
        return True, entry["summary"], found if isinstance(found, str) else ""

    def store_summary(self, path: Path, digest: str, st: os.stat_result, summary: Any) -> None:
        self._changed[self.summary_key(path)] = {
            "digest": digest,
            "stat": self._trusted_stat(st),
            "seen": self._now // 10**9,
            "summary": summary,
            "hash": project.summary_hash(summary) if summary is not None else "",
        }

    def save(self) -> None:
        """Merge this run's entries into the cache on disk, atomically; never raises."""
        if not self._changed:
            return
        try:
            _prepare(self.directory)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            entries = self._read()  # what other runs saved meanwhile
            entries.update(self._changed)
            oldest = self._now // 10**9 - MAX_UNUSED_SECONDS
            entries = {k: v for k, v in entries.items() if isinstance(v, dict) and v.get("seen", 0) >= oldest}
            data = json.dumps({"schema": SCHEMA, "entries": entries}, separators=(",", ":")).encode()
            _write_atomic(self.path, data)
        except (OSError, ValueError):
            pass  # a read-only checkout, a full disk: the cache is an optimisation
        self._changed = {}


def _prepare(directory: Path) -> None:
    """Create the cache directory with its CACHEDIR.TAG and .gitignore (as Ruff does)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", "# Automatically created by gradlint.\n*\n")):
        target = directory / name
        if not target.exists():
            _write_atomic(target, text.encode())


def _write_atomic(target: Path, data: bytes) -> None:
    # A file of its own beside the target (O_EXCL), as tempfile.mkstemp makes one, but
    # without tempfile, whose imports (shutil, random, the compression modules) were
    # a twentieth of a check of one small file with the cache on (docs/benchmarks.md).
    # Mode 0o666 less the umask: a cache need not be private.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = target.parent / f".{target.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(target.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:  # Ctrl-C included: never leave the temporary file behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def default_directory(project_root: Path) -> Path:
    return project_root / CACHE_DIR_NAME


# -- diagnostics as JSON -------------------------------------------------------
# Field by field from the dataclasses, so that a field added to Diagnostic is
# cached without a change here; values are checked on the way back in, so that
# a damaged entry is a miss rather than a crash in a reporter.

_SCALARS = {
    "int": (int,),
    "str": (str,),
    "bool": (bool,),
    "Optional[int]": (int, type(None)),
    "Optional[str]": (str, type(None)),
}


def encode_diagnostics(diagnostics: List[Any]) -> List[Dict[str, Any]]:
    return [dataclasses.asdict(d) for d in diagnostics]


def decode_diagnostics(raw: Any) -> Optional[List[Any]]:
    """The diagnostics in a cache entry; None if the entry is malformed."""
    try:
        out = []
        for item in raw:
            fix = item["fix"]
            if fix is not None:
                edits = fix["edits"]
                if edits:
                    edits = [_build(TextEdit, e) for e in edits]
                fix = _build(FixInfo, dict(fix, edits=tuple(edits)), skip=("edits",))
            out.append(_build(Diagnostic, dict(item, fix=fix), skip=("fix",)))
        return out
    except (TypeError, KeyError, ValueError, AttributeError):
        return None


def _build(cls: Any, values: Dict[str, Any], skip: Tuple[str, ...] = ()) -> Any:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if set(values) != set(fields):
        raise ValueError(f"{cls.__name__}: fields differ")
    for name, f in fields.items():
        if name in skip:
            continue
        types = _SCALARS.get(str(f.type))
        if types is None or type(values[name]) not in types:
            raise ValueError(f"{cls.__name__}.{name}: unexpected value")
    return cls(**values)


def _unchanged(deps: Any) -> bool:
    """Whether every ``[path, mtime_ns, size]`` of ``deps`` still holds."""
    if not isinstance(deps, (list, tuple)):
        return False
    for dep in deps:
        try:
            path, mtime, size = dep
            st = os.stat(path)
        except FileNotFoundError:
            if dep[1] == -1:
                continue
            return False
        except (OSError, ValueError, TypeError):
            return False
        if mtime == -1 or (st.st_mtime_ns, st.st_size) != (mtime, size):
            return False
    return True
