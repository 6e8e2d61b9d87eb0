"""Making a flagged line run, and saying why it did not.

A file is run where it lives, as far as imports go: its own directory, the
root of the package holding it and its project's root are on ``sys.path``
(``import_paths``), so sibling modules import. Code that nothing calls at
import is reached with ``--entry module:function`` (called with no arguments
once the file is imported) or ``--driver driver.py`` (a script that imports
the file and calls it); either way the file is imported under its module
names (``module_names``), from the copy being run.

When a flagged line still never ran, ``explain`` says why, from how the run
ended and which functions were called, and what would make it run.
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from gradlint.semantic.module_files import project_root

# A directory holding one of these is a project's root (as for the config, plus the usual build files).
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")

_ENTRY = re.compile(r"^(?P<module>[^:]+):(?P<function>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$")
_MODULE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


class EntryError(ValueError):
    """A malformed ``--entry``."""


@dataclass(frozen=True)
class Entry:
    module: str  # a dotted module name, or a path ending in .py
    function: str  # a name, or ``Class.method`` for a static or class method

    @property
    def is_path(self) -> bool:
        return self.module.endswith(".py")

    def __str__(self) -> str:
        return f"{self.module}:{self.function}"


def parse_entry(text: str) -> Entry:
    m = _ENTRY.match(text.strip())
    if not m or not (m.group("module").endswith(".py") or _MODULE.match(m.group("module"))):
        raise EntryError(f"--entry: {text!r} is not 'module:function' or 'path.py:function'")
    return Entry(m.group("module"), m.group("function"))


def project_dir(path: Path) -> Optional[str]:
    """The nearest directory at or above the file's that holds a project marker."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.exists(os.path.join(d, marker)) for marker in ROOT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def import_paths(path: Path, cwd: Optional[str] = None) -> List[str]:
    """What goes on ``sys.path`` after the run's own directory: the file's
    directory (as ``python file.py`` does), the parent of its topmost package,
    its project's root (and the root's ``src``), then the directory verify was
    started from."""
    out: List[str] = []
    project = project_dir(path)
    candidates = [os.path.dirname(os.path.abspath(path)), project_root(str(path))]
    if project is not None:
        candidates += [project, os.path.join(project, "src")]
    candidates.append(os.path.abspath(cwd or os.getcwd()))
    for d in candidates:
        if os.path.isdir(d) and d not in out:
            out.append(d)
    return out


def module_names(path: Path) -> List[str]:
    """The names the file imports as: dotted from its package root, and its bare name
    (its own directory is on the path)."""
    absolute = os.path.abspath(path)
    root = project_root(absolute)
    rel = os.path.relpath(absolute, root)[: -len(".py")] if absolute.endswith(".py") else None
    names: List[str] = []
    if rel is not None:
        parts = rel.split(os.sep)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and all(_MODULE.match(p) for p in parts):
            names.append(".".join(parts))
        stem = Path(absolute).stem
        if stem != "__init__" and _MODULE.match(stem) and stem not in names:
            names.append(stem)
    return names


def entry_config(entry: Optional[Entry], path: Path, names: Sequence[str]) -> Optional[Dict[str, Any]]:
    """What the harness needs to call ``entry`` for the file at ``path``: an
    entry naming the file itself (by a module name or its path) calls into the
    copy being run."""
    if entry is None:
        return None
    if entry.is_path:
        target = os.path.abspath(entry.module)
        if os.path.exists(target) and os.path.samefile(target, path):
            return {"module": names[0] if names else None, "function": entry.function, "path": None}
        return {"module": Path(target).stem, "function": entry.function, "path": target}
    return {"module": entry.module, "function": entry.function, "path": None}


# -- why a line did not run ---------------------------------------------------------

_MISSING_FILE = re.compile(r"No such file or directory: ['\"](?P<path>[^'\"]+)['\"]")
_NO_MODULE = re.compile(r"No module named ['\"](?P<name>[\w.]+)['\"]")
_CANNOT_IMPORT = re.compile(r"cannot import name ['\"](?P<name>\w+)['\"] from ['\"](?P<module>[\w.]+)['\"]")
_CUDA = re.compile(
    r"CUDA|NVIDIA driver|cuda\.is_available\(\) is False|compiled with CUDA|no CUDA GPUs|CUDA_VISIBLE_DEVICES|nccl", re.IGNORECASE
)


@dataclass(frozen=True)
class Caller:
    """The top-level function (or method) a flagged line is in, and what the run saw of it."""

    qualname: str  # ``train`` or ``Trainer.fit``
    is_method: bool
    needs_arguments: bool
    calls: int


def explain(
    line: int,
    end: Dict[str, Any],
    status_text: str,
    caller: Optional[Caller],
    path: Path,
    names: Sequence[str],
    imported: bool,
) -> Tuple[str, str]:
    """(why line ``line`` never ran, what would make it run). ``end`` is how the run
    ended (the harness's outcome); ``imported``: the file ran under --entry/--driver."""
    kind = end.get("kind", "completed")
    module = names[0] if names else Path(path).stem
    if kind in ("exception", "out-of-memory"):
        return _after_exception(line, end, status_text, path, imported)
    if kind == "exit":
        return (
            f"the file {status_text} before line {line} ran",
            "it may want command-line arguments: pass --driver driver.py that sets sys.argv or calls the code itself",
        )
    if caller is not None and caller.calls == 0:
        why = f"`{caller.qualname}()` is never called"
        if caller.is_method:
            owner, _, method = caller.qualname.rpartition(".")
            return why, f"pass --driver driver.py that imports `{module}`, builds a `{owner}` and calls `{method}()`"
        if caller.needs_arguments:
            return why, f"pass --driver driver.py that imports `{module}` and calls `{caller.qualname}(...)` with arguments"
        return why, f"pass --entry {module}:{caller.qualname}"
    if caller is not None:
        times = "once" if caller.calls == 1 else f"{caller.calls} times"
        return (
            f"`{caller.qualname}()` ran {times} but not through line {line} (a branch not taken, or it returned earlier)",
            "pass --driver driver.py that calls it with inputs that take that branch",
        )
    if imported:
        return (
            f"line {line} is in a branch not taken (under --entry/--driver the file is imported, not run as __main__)",
            "call the code under that branch from the driver",
        )
    return f"line {line} is in a branch not taken", "pass --driver driver.py that takes that branch"


def _after_exception(line: int, end: Dict[str, Any], status_text: str, path: Path, imported: bool) -> Tuple[str, str]:
    types = end.get("types") or []
    message = str(end.get("message", ""))
    at = f" at line {end['line']}" if end.get("line") else ""
    stopped = f"the run stopped{at}"
    if "FileNotFoundError" in types:
        m = _MISSING_FILE.search(message)
        what = m.group("path") if m else "a file"
        found = _found_from(what, path) if m and not os.path.isabs(what) else None
        if found is not None:
            return (
                f"{stopped}: the file reads {what}, which is at {os.path.join(found, what)}, "
                "not in the empty temporary directory verify runs it in",
                f"pass --driver driver.py that calls os.chdir({found!r}) before it imports the file "
                "(what the run writes then lands there)",
            )
        where = "" if os.path.isabs(what) else " (verify runs it in an empty temporary directory)"
        return (
            f"{stopped}: the file reads {what}, which is missing{where}",
            "pass --driver driver.py that writes a small stand-in for it before it imports the file, "
            "or --entry a function that does not read it",
        )
    if _CUDA.search(message) and ("RuntimeError" in types or "AssertionError" in types or "AcceleratorError" in types):
        return (
            f"{stopped}: it needs CUDA, which torch does not have here ({_clip(message)})",
            "run verify on a machine where torch.cuda.is_available(), or pass --driver driver.py that runs the code on the CPU",
        )
    if "ImportError" in types:
        return _import_error(stopped, message, path)
    if "EntryError" in types:
        return f"the run stopped: {message}", "check --entry: 'module:function' naming a function that takes no arguments"
    return (
        f"{stopped}: {status_text}",
        "fix what raised there, or pass --entry/--driver to reach the line another way",
    )


def _found_from(relative: str, path: Path) -> Optional[str]:
    """The directory, the file's own or one above it, from which ``relative`` exists."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(d, relative)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _import_error(stopped: str, message: str, path: Path) -> Tuple[str, str]:
    m = _NO_MODULE.search(message)
    if m is None:
        c = _CANNOT_IMPORT.search(message)
        if c is not None:
            return (
                f"{stopped}: `{c.group('module')}` has no `{c.group('name')}` (ImportError)",
                f"install the version of `{c.group('module').split('.')[0]}` the code was written for",
            )
        return f"{stopped}: ImportError: {_clip(message)}", "install what it imports"
    name = m.group("name")
    top = name.split(".")[0]
    sibling = _sibling(top, path)
    if sibling is not None:
        return (
            f"{stopped}: `{name}` is a module of the project ({sibling}), not on the path",
            f"run verify from {os.path.dirname(sibling)} (the project root), so that `{top}` imports",
        )
    if _installed(top):
        return (
            f"{stopped}: `{name}` is not part of the installed `{top}` (it may have been removed)",
            f"install the version of `{top}` the code was written for",
        )
    return f"{stopped}: `{top}` is not installed", f"install {top} (pip install {top}, or the package that provides it)"


def _sibling(top: str, path: Path) -> Optional[str]:
    """A module or package named ``top`` in the file's directory or a directory above it."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        for candidate in (os.path.join(d, top + ".py"), os.path.join(d, top, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate if candidate.endswith(top + ".py") else os.path.dirname(candidate)
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _installed(top: str) -> bool:
    """Found without importing it (a top-level name only: a submodule's spec imports its parents)."""
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _clip(text: str, n: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
