"""Each finding with its source lines, a caret under the span and a preview of its fix.

The layout follows Ruff's ``full`` format (itself rustc's): a header, ``-->``
and the location, the numbered source lines with ``^`` under the finding,
then ``help:`` with the fix title and the fix as a small diff (line numbers
of the fixed file, ``-`` removed and ``+`` added lines). Colours only when
``RunInfo.color``; the text is the same without them.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any, Dict, List, Optional, Sequence, Tuple

import click

from gradlint.reporters import RunInfo, fixable, location, sorted_diagnostics
from gradlint.reporters.concise import summary_lines
from gradlint.results import Diagnostic, FileReport, TextEdit

# Source lines shown around a finding, and the most lines of one span shown in full.
CONTEXT = 1
MAX_SPAN_LINES = 6
TAB = "    "

_UNSEEN: Any = object()

# The line breaks Python's tokenizer (and so every row number) counts.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> List[str]:
    return _LINE_BREAK.split(text)


def char_width(ch: str) -> int:
    if ch == "\t":
        return len(TAB)
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display(line: str) -> str:
    return line.replace("\t", TAB)


def width(text: str) -> int:
    return sum(char_width(ch) for ch in text)


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, **style) -> str:
        return click.style(text, **style) if self.color and text else text


def _underline(line: str, start: int, end: int) -> Tuple[int, int]:
    """(offset, length) in display columns of ``line[start:end]`` (0-based code points), at least one caret."""
    start = min(start, len(line))
    end = max(start, min(end, len(line)))
    return width(line[:start]), max(1, width(line[start:end]))


def _span_rows(d: Diagnostic, lines: List[str]) -> List[Tuple[int, Optional[Tuple[int, int]]]]:
    """Rows to show with the (offset, length) of their carets; None for a row without."""
    last = min(d.end_row, len(lines))
    rows: List[Tuple[int, Optional[Tuple[int, int]]]] = []
    for row in range(d.row, last + 1):
        line = lines[row - 1]
        stripped = len(line) - len(line.lstrip())
        start = d.column - 1 if row == d.row else stripped
        end = d.end_column - 1 if row == d.end_row else len(line.rstrip())
        if row == d.row and row == d.end_row and end <= start:
            end = start + 1  # an empty span (a syntax error at a point)
        rows.append((row, _underline(line, start, end)))
    if len(rows) > MAX_SPAN_LINES:
        keep = MAX_SPAN_LINES // 2
        rows = rows[:keep] + [(-1, None)] + rows[-keep:]
    before = [(r, None) for r in range(max(1, d.row - CONTEXT), d.row)]
    after = [(r, None) for r in range(last + 1, min(len(lines), last + CONTEXT) + 1)]
    # A trailing empty "line" after the final newline is not worth showing.
    after = [(r, c) for r, c in after if r < len(lines) or lines[r - 1]]
    return before + rows + after


class _Text:
    """One checked text, split once for every finding in it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = split_lines(source)
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(source)]

    def offset(self, row: int, column: int) -> int:
        return self.starts[row - 1] + column - 1 if row <= len(self.starts) else len(self.source)


def _fix_preview(text: _Text, edits: Sequence[TextEdit]) -> List[Tuple[str, Optional[int], str]]:
    """The fix as (mark, line number in the fixed text, line) rows: mark is ' ', '-', '+' or '...'.

    What a diff of the whole text before and after the fix shows, with CONTEXT
    lines around each change. The edits are applied to the few lines they
    touch, and the fixed text's lines are those of the text with these few
    replaced: no copy of the whole text per finding."""
    edits = sorted(edits, key=lambda e: (e.row, e.column, e.end_row, e.end_column))
    # Runs of edits on the same or adjacent lines, each applied to its lines.
    clusters: List[List[TextEdit]] = []
    for e in edits:
        if clusters and e.row <= max(x.end_row for x in clusters[-1]) + 1:
            clusters[-1].append(e)
        else:
            clusters.append([e])
    old = text.lines
    new: List[str] = []
    done = 0  # lines of ``old`` already in ``new``
    for cluster in clusters:
        lo = cluster[0].row
        hi = min(len(old), max(e.end_row for e in cluster))
        start = text.starts[lo - 1]
        end = text.starts[hi] if hi < len(text.starts) else len(text.source)
        window = text.source[start:end]
        for e in reversed(cluster):
            window = window[: text.offset(e.row, e.column) - start] + e.content + window[text.offset(e.end_row, e.end_column) - start :]
        replaced = split_lines(window)
        if hi < len(text.starts):
            replaced.pop()  # the window ends with line ``hi``'s break: no line after it
        new += old[done : lo - 1]
        new += replaced
        done = hi
    new += old[done:]
    old = list(old)
    if old[-1] == "" and new[-1] == "":
        old.pop()  # the empty "line" after a final newline
        new.pop()
    rows: List[Tuple[str, Optional[int], str]] = []
    # Only the lines from the first edit to the last, with their context, can differ:
    # diffed alone, not the whole file once per finding.
    delta = len(new) - len(old)
    a0 = max(0, clusters[0][0].row - 1 - CONTEXT) if clusters else 0
    a1 = min(len(old), max(e.end_row for e in clusters[-1]) + CONTEXT) if clusters else len(old)
    a1 = max(a0, a1)
    matcher = difflib.SequenceMatcher(a=old[a0:a1], b=new[a0 : a1 + delta], autojunk=False)
    for i, group in enumerate(matcher.get_grouped_opcodes(CONTEXT)):
        if i:
            rows.append(("...", None, ""))
        for tag, i1, i2, j1, j2 in ((t, i1 + a0, i2 + a0, j1 + a0, j2 + a0) for t, i1, i2, j1, j2 in group):
            if tag == "equal":
                rows += [(" ", j + 1, new[j]) for j in range(j1, j2)]
                continue
            rows += [("-", None, old[k]) for k in range(i1, i2)]
            rows += [("+", j + 1, new[j]) for j in range(j1, j2)]
    return rows


def _render_one(path: str, d: Diagnostic, text: Optional[_Text], info: RunInfo, paint: _Painter) -> List[str]:
    mark = " " + paint("[*]", fg="cyan") if fixable(d, info.unsafe_fixes) else ""
    out = [f"{paint(d.code, fg='red', bold=True)}{mark} {paint(d.message, bold=True)}"]
    out.append(f" {paint('-->', fg='blue', bold=True)} {location(path, d)}")
    lines = text.lines if text is not None else []
    shown = _span_rows(d, lines) if 1 <= d.row <= len(lines) else []
    # In a notebook a fix may also edit another cell (an import): preview this cell's part.
    edits = [e for e in d.fix.edits if e.cell == d.cell] if d.fix is not None else []
    preview = _fix_preview(text, edits) if text is not None and edits else []
    numbers = [r for r, _ in shown if r > 0] + [n for _, n, _ in preview if n is not None]
    w = len(str(max(numbers))) if numbers else 1
    bar = paint("|", fg="blue", bold=True)

    def gutter(label: str) -> str:
        return paint(f"{label:>{w}}", fg="blue", bold=True)

    if shown:
        out.append(f"{' ' * w} {bar}")
        for row, caret in shown:
            if row < 0:
                out.append(f"{' ' * w} {paint('...', fg='blue', bold=True)}")
                continue
            out.append(f"{gutter(str(row))} {bar} {display(lines[row - 1])}".rstrip())
            if caret is not None:
                offset, length = caret
                out.append(f"{' ' * w} {bar} {' ' * offset}{paint('^' * length, fg='red', bold=True)}")
        out.append(f"{' ' * w} {bar}")
    if d.fix is not None:
        out.append(f"{paint('help', fg='cyan', bold=True)}: {d.fix.message}")
        if preview:
            out.append(f"{' ' * w} {bar}")
            for kind, number, line in preview:
                if kind == "...":
                    out.append(f"{' ' * w} {paint('...', fg='blue', bold=True)}")
                elif kind == "-":
                    out.append(f"{' ' * w} {paint('-', fg='red', bold=True)} {paint(display(line), fg='red')}".rstrip())
                elif kind == "+":
                    out.append(f"{gutter(str(number))} {paint('+', fg='green', bold=True)} {paint(display(line), fg='green')}".rstrip())
                else:
                    out.append(f"{gutter(str(number))} {bar} {display(line)}".rstrip())
            out.append(f"{' ' * w} {bar}")
        if d.fix.applicability == "unsafe":
            out.append(f"{paint('note', bold=True)}: This is an unsafe fix and may change runtime behavior")
    return out


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    paint = _Painter(info.color)
    by_path = {r.path: r for r in reports}
    lines: List[str] = []
    texts: Dict[Tuple[str, Optional[int]], Optional[_Text]] = {}
    for path, d in sorted_diagnostics(reports):
        text = texts.get((path, d.cell), _UNSEEN)
        if text is _UNSEEN:
            report = by_path[path]
            source = report.cells.get(d.cell) if d.cell is not None and report.cells else report.source
            text = texts[(path, d.cell)] = _Text(source) if source is not None else None
        lines += _render_one(path, d, text, info, paint)
        lines.append("")
    if not info.quiet:
        lines += summary_lines(reports, info)
    return "".join(line + "\n" for line in lines)
