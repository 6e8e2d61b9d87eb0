"""Which other files a run of few files indexes besides the files it checks.

A pre-commit hook, an editor or stdin names one file or a handful; the facts
their checks need often live in other files of the project: a base class in the
same directory, a loss module in ``utils/losses.py`` below it, a loader that
returns an ``eval()``'d model two imports away (``clip.load`` runs
``build_model`` of ``clip/model.py``). So the index of such a run holds:

1. the project files those files import, and the files those import in turn,
   up to ``bounds.IMPORT_STEPS`` steps: a module ``a.b`` resolves to ``a/b.py`` or
   ``a/b/__init__.py`` below the importing file's directory, a package
   directory above it, or a directory up to ``bounds.SCRIPT_ROOT_LEVELS`` above the
   topmost one (the places Python would find it when the script or package is
   run from there); a relative import from the importing file's own package;
2. the other ``.py`` files of the checked files' directories and of the
   packages above them (directories holding an ``__init__.py``).

Imported files come first: they are what a check is most likely to ask about,
and ``limit`` bounds the whole. The imports are read with two regular
expressions, not parsed: a few milliseconds for the thirty files a script's
imports reach.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePath
from typing import Iterator, List, Sequence, Set, Tuple

from gradlint.semantic import bounds

# A run of few files indexes at most this many other files besides them.
MAX_EXTRA_FILES = 256
# Files larger than this are not read for their imports (generated code, data).
_MAX_READ = 1 << 20
# ``import a.b as c, d`` and ``from ..a import (b, c as d)`` at the start of a line.
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.MULTILINE)


def _real(path: PurePath) -> str:
    """``path`` with its links resolved as far as they go: a link loop or a dangling
    link is reported by the check of that file, not here (``Path.resolve`` raises)."""
    return os.path.realpath(path)


def _package_dirs(path: Path) -> List[Path]:
    """The file's directory and each package directory above it, innermost first."""
    dirs = []
    d = path.parent
    while True:
        dirs.append(d)
        if not (d / "__init__.py").is_file() or d.parent == d:
            return dirs
        d = d.parent


def _above(top: Path) -> List[Path]:
    """Directories above a project's top where a script's imports may be found: a
    script of ``tools/`` that puts the repository's top on ``sys.path``."""
    out: List[Path] = []
    d = top
    for _ in range(bounds.SCRIPT_ROOT_LEVELS):
        if d.resolve().parent == d.resolve():
            break
        d = d.parent
        out.append(d)
    return out


def _imported_modules(text: str) -> Iterator[Tuple[int, str]]:
    """(relative level, dotted name) of every module an import statement in the
    file may load: ``from a import b`` may load ``a`` or the submodule ``a.b``.
    Read line by line, not parsed: a hook runs this on every file it checks and on
    their imports, where a parse would cost a tenth of a second; a line inside a
    string that looks like an import can only add a file to the index."""
    for m in _IMPORT.finditer(text):
        for part in m.group(1).split(","):
            name = part.split()[0] if part.split() else ""
            if name:
                yield 0, name
    for m in _FROM.finditer(text):
        level, base = len(m.group(1)), m.group(2)
        if base:
            yield level, base
        for part in m.group(3).strip("()\\ \t\n").split(","):
            words = part.split()
            if words and words[0] != "*" and words[0].isidentifier():
                yield level, f"{base}.{words[0]}" if base else words[0]


def _module_file(base: Path, dotted: str) -> Iterator[Path]:
    parts = dotted.split(".")
    if not all(p.isidentifier() for p in parts):
        return
    stem = base.joinpath(*parts)
    for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
        if candidate.is_file():
            yield candidate


def _imports_of(path: Path) -> List[Path]:
    """The project files ``path`` imports, in the order its imports name them."""
    try:
        st = path.stat()
        # A pipe, a device or a huge file named on the command line is the check's
        # to report; reading one here would block or take the run's memory.
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_READ:
            return []
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    bases = _package_dirs(path)
    above = _above(bases[-1])
    out: List[Path] = []
    for level, name in _imported_modules(text):
        if level:
            if level > len(bases):
                continue
            out.extend(_module_file(bases[level - 1], name) if name else ())
        else:
            for base in bases + above:
                found = list(_module_file(base, name))
                if found:
                    out.extend(found)
                    break
    return out


def extra_files(files: Sequence[PurePath], limit: int = MAX_EXTRA_FILES) -> List[PurePath]:
    """The files a run of ``files`` indexes besides them, at most ``limit``."""
    seen: Set[str] = {_real(f) for f in files}
    out: List[PurePath] = []

    def add(p: Path, real: str) -> bool:
        """Whether ``p`` is new to the run (then it is added)."""
        if real in seen:
            return False
        seen.add(real)
        out.append(p)
        return True

    frontier = [Path(f) for f in files]
    for _ in range(bounds.IMPORT_STEPS):
        following: List[Path] = []
        for f in frontier:
            for p in _imports_of(f):
                if add(p, _real(p)):
                    following.append(p)
                    if len(out) >= limit:
                        return out
        frontier = following

    dirs: List[Path] = []
    for given in files:
        for d in _package_dirs(Path(given)):  # as the run names it: what findings and messages show
            if _real(d) in {_real(x) for x in dirs}:
                break
            dirs.append(d)
    for d in dirs:
        try:
            entries = sorted(d.iterdir())
        except OSError:
            continue
        # An entry's real path is its directory's, unless it is a link itself: one
        # system call per entry, not one per component of its path (the flake8
        # plugin and the language server index every file's neighbours).
        real_d = _real(d)
        for p in entries:
            if p.suffix != ".py" or not p.is_file():
                continue
            if add(p, _real(p) if p.is_symlink() else os.path.join(real_d, p.name)) and len(out) >= limit:
                return out
    return out
