"""The methods that ``dataclasses`` writes, compiled once and kept as bytecode is.

For each dataclass, ``dataclasses`` writes the source of ``__init__``,
``__repr__``, ``__eq__`` and the rest and compiles it with ``exec``, every time
the class is made: importing LibCST's node classes (some 200 dataclasses, 600
such functions) spends about half of its CPU in that compiler, and so does
every ``gradlint check`` of a file that must be parsed (docs/benchmarks.md,
"Start-up"). The text is the same from run to run, so is what it compiles to.

While :func:`enable` is in force, ``dataclasses`` finds :func:`_exec` under the
name ``exec``: a source it has compiled before (the same text, the same
interpreter: ``MAGIC_NUMBER``) is taken from :func:`cache_path` as marshalled
code instead of being compiled again, and runs as ``exec`` would run it; any
other source is compiled as ``exec`` compiles it and kept. :func:`disable`
puts ``dataclasses`` back as it was and, when something new was compiled,
writes the file again, atomically, where and when Python writes bytecode: in
the ``__pycache__`` next to this module, or under ``sys.pycache_prefix``, and
not at all under ``-B`` / ``PYTHONDONTWRITEBYTECODE`` or where it may not write.
A file that cannot be read, of another interpreter, or damaged, is as none.
"""

from __future__ import annotations

import marshal
import os
import sys
from types import CodeType
from typing import Any, Dict, Optional

import dataclasses

try:
    # What importlib.util names MAGIC_NUMBER, from the module the interpreter starts with.
    from _frozen_importlib_external import MAGIC_NUMBER
except ImportError:  # pragma: no cover - an interpreter without frozen importlib
    from importlib.util import MAGIC_NUMBER

# More entries than this (LibCST's classes and gradlint's take some 820):
# versions of LibCST come and go; the file keeps only what the last run used.
_MAX_ENTRIES = 5000

_state: Dict[str, Any] = {"cache": None, "used": {}, "new": 0, "path": None}


def cache_path() -> str:
    """Where the compiled methods are kept: this interpreter's bytecode cache for this package."""
    here = os.path.dirname(os.path.abspath(__file__))
    name = f"dataclass_code.{sys.implementation.cache_tag}.marshal"
    prefix = sys.pycache_prefix
    if prefix:
        # As importlib places bytecode under a prefix: the source's directory, made relative.
        return os.path.join(prefix, os.path.splitdrive(here)[1].lstrip(os.sep), name)
    return os.path.join(here, "__pycache__", name)


def _load() -> Dict[str, bytes]:
    try:
        with open(_state["path"], "rb") as f:
            data = f.read()
    except OSError:
        return {}
    if not data.startswith(MAGIC_NUMBER):
        return {}
    try:
        cache = marshal.loads(data[len(MAGIC_NUMBER):])
    except (EOFError, ValueError, TypeError):
        return {}
    return cache if type(cache) is dict else {}


def _exec(source: Any, globals: Optional[Dict[str, Any]] = None, locals: Optional[Any] = None, /) -> None:
    if type(source) is not str or globals is None:
        # Not a text to compile, or one to run in the caller's namespace (exec's
        # default, which a call from here would change): exec itself.
        caller = sys._getframe(1)
        return exec(source, caller.f_globals if globals is None else globals,
                    (caller.f_locals if globals is None else globals) if locals is None else locals)
    cache = _state["cache"]
    if cache is None:
        cache = _state["cache"] = _load()
    blob = cache.get(source)
    code = None
    if type(blob) is bytes:
        try:
            code = marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            code = None
    if type(code) is not CodeType:
        # As exec compiles a string in dataclasses, which has no __future__ imports
        # (this module's are not the caller's).
        code = compile(source, "<string>", "exec", dont_inherit=True)
        blob = marshal.dumps(code)
        _state["new"] += 1
    _state["used"][source] = blob
    return exec(code, globals, locals)


def enable() -> bool:
    """From now on ``dataclasses`` compiles each method once; False where it is
    enabled already or ``dataclasses`` has an ``exec`` of its own."""
    if "exec" in vars(dataclasses):
        return False
    _state.update(cache=None, used={}, new=0, path=cache_path())
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    return True


def disable() -> None:
    """``dataclasses`` as before :func:`enable`; the file written again if a method was new."""
    if vars(dataclasses).get("exec") is not _exec:
        return
    del dataclasses.exec  # type: ignore[attr-defined]
    cache, used, new, path = _state["cache"], _state["used"], _state["new"], _state["path"]
    _state.update(cache=None, used={}, new=0)
    if not new or sys.dont_write_bytecode:
        return
    kept = dict(cache or {})
    kept.update(used)
    if len(kept) > _MAX_ENTRIES:
        kept = used
    _write(path, MAGIC_NUMBER + marshal.dumps(kept))


def _write(path: str, data: bytes) -> None:
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as f:
            f.write(data)
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass
