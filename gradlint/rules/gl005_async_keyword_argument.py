"""GL005 async-keyword-argument: ``x.cuda(async=True)``, PyTorch 0.3's ``non_blocking=True``.

Since Python 3.7 ``async`` is a keyword and such a file does not parse, so
this rule finds nothing in a tree: it registers a source repair
(``rule.SourceRepair``) that renames each ``async=`` argument on the token
stream (``gradlint.legacy_syntax``). Each rename is a finding, fixed by the
rename itself, and the other rules check the renamed text.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from gradlint import legacy_syntax
from gradlint.rule import Position, Repaired, Rule, SourceRepair

_OLD_NAME = "async"


class _Unrename:
    """Positions in the renamed text -> positions in the text as written (only
    the lines with a renamed argument differ, by the length of the new name)."""

    def __init__(self, renamed: Sequence[legacy_syntax.AsyncArgument]) -> None:
        self._by_line: Dict[int, List[int]] = {}
        for a in sorted(renamed, key=lambda a: (a.line, a.column)):
            self._by_line.setdefault(a.line, []).append(a.column)
        self._grow = len(legacy_syntax.NEW_NAME) - len(_OLD_NAME)

    def __call__(self, pos: Position) -> Position:
        line, column = pos
        columns = self._by_line.get(line)
        if not columns:
            return pos
        out = column
        for i, original in enumerate(columns):
            start = original + i * self._grow  # where the new name starts in the renamed line
            if column >= start + len(legacy_syntax.NEW_NAME):
                out -= self._grow
            elif column > start:
                out = original + min(column - start, len(_OLD_NAME))
                break
        return line, out


class _RenameAsyncArguments(SourceRepair):
    # ``async`` then ``=``, with anything the tokenizer skips between them.
    pattern = r"\basync(?:[\s\\]|#[^\r\n]*)*="

    def needed(self, source: str) -> bool:
        return _OLD_NAME in source and bool(legacy_syntax.async_arguments(source))

    def repair(self, source: str) -> Optional[Repaired]:
        text, renamed = legacy_syntax.rename_async_arguments(source)
        if not renamed:
            return None
        spans: Tuple[Tuple[Position, Position], ...] = tuple(
            ((a.line, a.column), (a.line, a.column + len(_OLD_NAME))) for a in renamed
        )
        return Repaired(text, spans, _Unrename(renamed))

    def hint(self, source: str, line: int) -> str:
        return legacy_syntax.repair_hint(source, line) if _OLD_NAME in source else ""


class AsyncKeywordArgument(Rule):
    code = "GL005"
    triggers = (_OLD_NAME,)
    # Its findings come from the repair, never from a tree: the gate keeps the
    # rule itself from sending the many files with `async def` to the parser.
    gates = (re.compile(r"\basync\s*="),)
    source_repair = _RenameAsyncArguments()
