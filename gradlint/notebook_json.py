"""Where each cell's source lies in a notebook's JSON text.

Fixes to a notebook are written into its ``.ipynb`` text in place, keeping every
byte outside the edited cells' ``source`` values as it was (indentation, key
order, escapes): that needs the text spans of those values, which ``json``
does not give. The text is known to be valid JSON (``json.loads`` read it first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def skip(s: str, i: int) -> int:
    return _WS.match(s, i).end()  # type: ignore[union-attr]


def value_end(s: str, i: int) -> int:
    return _DECODER.raw_decode(s, i)[1]


def scan_object(s: str, i: int, on_member: Callable[[str, int, int], int]) -> int:
    """Walk the object at ``s[i] == '{'`` (known to be valid JSON): ``on_member(key,
    key_start, value_start)`` returns where the value ends. Returns the end of the object."""
    i = skip(s, i + 1)
    if s[i] == "}":
        return i + 1
    while True:
        key, j = json.decoder.scanstring(s, i + 1)  # type: ignore[attr-defined]
        j = skip(s, j)
        end = on_member(key, i, skip(s, j + 1))
        i = skip(s, end)
        if s[i] == "}":
            return i + 1
        i = skip(s, i + 1)


def scan_array(s: str, i: int, on_item: Callable[[int], int]) -> int:
    i = skip(s, i + 1)
    if s[i] == "]":
        return i + 1
    while True:
        i = skip(s, on_item(i))
        if s[i] == "]":
            return i + 1
        i = skip(s, i + 1)


@dataclass(frozen=True)
class SourceSpan:
    """Where a cell's ``source`` value is in the JSON text."""

    key_start: int
    start: int
    end: int
    # Spans of the items when the source is a list of lines; None when it is a string.
    items: Optional[Tuple[Tuple[int, int], ...]]


def source_spans(s: str) -> Tuple[List[Optional[SourceSpan]], str]:
    """The span of each cell's ``source`` value, in cell order (None where it has none),
    and the text between the first two members of the top-level object (``",\\n "``,
    ``", "``...). As ``json.loads``, the last of duplicate keys wins."""
    spans: List[Optional[SourceSpan]] = []
    members: List[Tuple[int, int]] = []  # (key start, value end) of top-level members

    def item_spans(start: int) -> Tuple[int, Optional[Tuple[Tuple[int, int], ...]]]:
        if s[start] != "[":
            return value_end(s, start), None
        items: List[Tuple[int, int]] = []

        def item(i: int) -> int:
            end = value_end(s, i)
            items.append((i, end))
            return end

        return scan_array(s, start, item), tuple(items)

    def cell(start: int) -> int:
        found: List[SourceSpan] = []

        def member(key: str, key_start: int, value_start: int) -> int:
            if key != "source":
                return value_end(s, value_start)
            end, items = item_spans(value_start)
            found.append(SourceSpan(key_start, value_start, end, items))
            return end

        end = scan_object(s, start, member) if s[start] == "{" else value_end(s, start)
        spans.append(found[-1] if found else None)
        return end

    def top(key: str, key_start: int, value_start: int) -> int:
        if key == "cells" and s[value_start] == "[":
            spans.clear()
            end = scan_array(s, value_start, cell)
        else:
            end = value_end(s, value_start)
        members.append((key_start, end))
        return end

    scan_object(s, skip(s, 0), top)
    separator = s[members[0][1] : members[1][0]] if len(members) > 1 else ","
    return spans, separator


def raw_offset(s: str, start: int, decoded: int) -> int:
    """The offset, from the opening quote at ``s[start]``, of the JSON string's
    ``decoded``-th character (escapes such as ``\\n`` or ``\\u00e9`` count as one;
    a surrogate pair of escapes as one code point)."""
    i, n = start + 1, 0
    while n < decoded:
        if s[i] == "\\":
            if s[i + 1] == "u":
                high = 0xD800 <= int(s[i + 2 : i + 6], 16) < 0xDC00
                i += 12 if high and s.startswith("\\u", i + 6) else 6
            else:
                i += 2
        else:
            i += 1
        n += 1
    return i - start
