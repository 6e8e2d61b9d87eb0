"""The user's frames, and the sites in them that findings point at.

A frame is the user's when its code lies outside torch, the guard, pytest,
pluggy, the standard library and installed packages. Used by ``monitor``.
"""

from __future__ import annotations

import dis
import os
import sysconfig
from typing import Any, Dict, Optional, Tuple

import torch

from gradlint.guard.report import Site


def _excluded_prefixes() -> Tuple[str, ...]:
    import pluggy
    import _pytest

    dirs = [os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)),
            os.path.dirname(_pytest.__file__), os.path.dirname(pluggy.__file__)]
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.append(path)
    return tuple(os.path.normcase(os.path.abspath(d)) + os.sep for d in dirs)


def _runner_prefixes() -> Tuple[str, ...]:
    import pluggy
    import _pytest

    return tuple(os.path.normcase(os.path.abspath(os.path.dirname(str(m.__file__)))) + os.sep for m in (_pytest, pluggy))


class _Frames:
    """Finds the user's frame: the innermost one outside torch, the guard, pytest and installed packages."""

    def __init__(self) -> None:
        self._prefixes = _excluded_prefixes()
        self._runner = _runner_prefixes()
        self._user: Dict[Any, bool] = {}
        self._positions: Dict[Any, list] = {}
        self._sites: Dict[Tuple[Any, int], Site] = {}

    def is_user(self, code) -> bool:
        known = self._user.get(code)
        if known is None:
            name = code.co_filename
            norm = os.path.normcase(os.path.abspath(name)) if not name.startswith("<") else ""
            known = bool(norm) and not norm.startswith(self._prefixes) and (
                "site-packages" not in norm and "dist-packages" not in norm
            )
            self._user[code] = known
        return known

    def is_runner(self, code) -> bool:
        """Whether ``code`` is pytest's or pluggy's: the test's caller."""
        name = code.co_filename
        return not name.startswith("<") and os.path.normcase(os.path.abspath(name)).startswith(self._runner)

    def user_frame(self, frame):
        while frame is not None:
            if self.is_user(frame.f_code):
                return frame
            frame = frame.f_back
        return None

    def site(self, frame) -> Site:
        key = (frame.f_code, frame.f_lasti)
        site = self._sites.get(key)
        if site is None:
            site = self._sites[key] = self._site(frame)
        return site

    def _site(self, frame) -> Site:
        code = frame.f_code
        path = os.path.abspath(code.co_filename)
        row = frame.f_lineno or code.co_firstlineno
        positions = self._positions.get(code)
        if positions is None and hasattr(code, "co_positions"):
            positions = self._positions[code] = list(code.co_positions())
        if positions:
            index = frame.f_lasti // 2
            if 0 <= index < len(positions):
                line, end_line, col, end_col = positions[index]
                if line == row and col is not None and end_line and end_col is not None:
                    return Site(path, row, col + 1, end_line, end_col + 1)
        return Site(path, row)


def _accumulation_site(frame, name: str) -> Optional[Site]:
    """Where ``name`` is first named after the call in progress (the accumulating statement)."""
    path = os.path.abspath(frame.f_code.co_filename)
    lasti = frame.f_lasti
    row = frame.f_lineno
    first = None
    after = None
    for ins in dis.get_instructions(frame.f_code):
        if ins.argval != name or ins.opname not in _NAME_OPS:
            continue
        pos = getattr(ins, "positions", None)
        site: Optional[Site]
        if pos is not None and pos.lineno and pos.col_offset is not None:
            site = Site(path, pos.lineno, pos.col_offset + 1, pos.end_lineno or pos.lineno, (pos.end_col_offset or 0) + 1)
        else:  # Python < 3.11: a line, no columns
            line = _line_of(frame.f_code, ins.offset)
            site = Site(path, line) if line else None
        if site is None:
            continue
        if site.row == row:
            # Named in the statement of the call in progress (`acc.append(model(x))`,
            # `total = total + model(x)`): that statement is the accumulation.
            return site
        if ins.offset > lasti and after is None:
            after = site
        if first is None:
            first = site
    # The next statement that names it, or one before the forward in the loop body.
    return after or first


def _current_statement(frame) -> Optional[Site]:
    """The line the frame is executing, from its first column."""
    row = frame.f_lineno
    if not row:
        return None
    import linecache

    path = os.path.abspath(frame.f_code.co_filename)
    text = linecache.getline(path, row)
    column = len(text) - len(text.lstrip()) + 1 if text.strip() else 1
    return Site(path, row, column, row, len(text.rstrip()) + 1 if text.strip() else column)


def _line_of(code, offset: int) -> Optional[int]:
    line = None
    for start, lineno in dis.findlinestarts(code):
        if start > offset:
            break
        line = lineno
    return line


_NAME_OPS = frozenset(
    ("LOAD_FAST", "STORE_FAST", "LOAD_NAME", "STORE_NAME", "LOAD_GLOBAL", "STORE_GLOBAL", "LOAD_DEREF",
     "STORE_DEREF", "LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD", "LOAD_CLOSURE")
)
