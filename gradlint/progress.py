"""A progress line on stderr for long runs: ``[=====>    ] 120/480 files  3.2s``.

Shown only when stderr is a terminal and the run checks many files; it
rewrites one line in place (``\\r``) and erases it when the run ends, so
nothing of it remains in the terminal, and nothing of it ever reaches a pipe,
a file or CI logs.
"""

from __future__ import annotations

import time
from typing import Callable, Optional, TextIO

# Below this many files a run is over before a bar would be read.
MIN_FILES = 50
# Redraw at most this often (seconds): drawing is not free on slow terminals.
INTERVAL = 0.1
ERASE_LINE = "\r\x1b[2K"


def wanted(n_files: int, stream: TextIO, quiet: bool = False) -> bool:
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        tty = False
    return tty and not quiet and n_files >= MIN_FILES


class Progress:
    def __init__(self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.clock = clock
        self.start = clock()
        self._drawn_at: Optional[float] = None

    def line(self, columns: int) -> str:
        count = f"{self.done:>{len(str(self.total))}}/{self.total} files  {self.clock() - self.start:.1f}s"
        bar_width = min(30, columns - len(count) - 4)
        if bar_width < 10:
            return count[: max(columns - 1, 0)]
        filled = bar_width * self.done // self.total if self.total else bar_width
        head = ">" if filled < bar_width else ""
        return f"[{'=' * filled}{head}{' ' * (bar_width - filled - len(head))}] {count}"

    def advance(self, *_: object) -> None:
        self.done += 1
        now = self.clock()
        if self._drawn_at is None or now - self._drawn_at >= INTERVAL or self.done == self.total:
            self._drawn_at = now
            import shutil  # with bz2 and lzma: only once a bar is drawn

            columns = shutil.get_terminal_size(fallback=(80, 24)).columns
            self.stream.write("\r" + self.line(columns))
            self.stream.flush()

    def close(self) -> None:
        if self._drawn_at is not None:
            self.stream.write(ERASE_LINE)
            self.stream.flush()
