"""Jupyter notebooks as one Python module, and fixes written back into their cells.

The code cells of a notebook run in one namespace, one after the other, so the
engine sees them as one module: each cell's source, ending with a newline,
concatenated in order. Rules that look across statements (an import in cell 1,
``model.eval()`` in cell 4 and ``model(x)`` in cell 5) then work as in a file.

IPython syntax that is not Python (``%timeit``, ``%%time``, ``!pip install``,
``?obj``, ``obj??``, ``files = !ls``) is *masked*: each such line becomes a
``pass`` statement at the same indentation, so line numbers stay right and the
module parses. Cells whose cell magic runs another language (``%%bash``,
``%%writefile``...) and non-code cells are left out; so is a cell that does not
parse on its own (it is reported as GL000 and the others are still checked).

Writing back never re-serialises the notebook: only the JSON text of each
changed cell's ``source`` value is replaced, in the style it was written
(list of lines or string, indentation, ``\\uXXXX`` escapes or raw UTF-8, and
each unchanged line's original JSON text), so outputs, metadata, key order
and the final newline stay byte for byte. Fixed code is shared back among the
cells by a line diff (see ``Notebook._split``); a fix is refused when it would
change a masked line or leave a cell that no longer parses on its own (code
moved across a cell boundary), and its finding is then reported as not fixable.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import hashlib
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from gradlint.errors import WriteError
from gradlint.fixes import Fix
from gradlint.parsing import split_lines
from gradlint.text_diff import text_edits
from gradlint.notebook_json import SourceSpan, raw_offset, skip, source_spans
from gradlint.results import TextEdit

# Cell magics whose body is Python run in the kernel: the body is checked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "python", "python3"})
# Characters that start an IPython escape at the start of a logical line, none of
# which can start a Python statement: magics (%), shell (!), help (?), autocall (/ , ;).
_ESCAPES = ("%", "!", "?", "/", ",", ";")
_ASSIGN_ESCAPE = re.compile(r"[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]")
_CELL_MAGIC = re.compile(r"\s*%%(\w*)")
# How rule messages refer to another line of the module ("in eval mode (line 8)").
_LINE_REF = re.compile(r"\(line (\d+)\)")


class NotebookError(Exception):
    """Not a notebook gradlint can read; the message is one line."""


class Unwritable(Exception):
    """A fixed module that cannot be written back into the notebook's cells."""


@dataclass(frozen=True)
class Problem:
    """A cell left out of the analysis: 1-based cell and row, 0-based column, and why
    (GL000's text: "syntax error: ..." or why it was not parsed)."""

    cell: int
    row: int
    column: int
    message: str


@dataclass(frozen=True)
class Segment:
    """One code cell's part of the module text."""

    cell: int  # 1-based position of the cell in the notebook (markdown cells count)
    lines: Tuple[str, ...]  # what the engine sees, each line ending with a newline
    masks: Mapping[int, str]  # line index -> the original (IPython) line it stands for
    newline_added: bool  # the cell's source did not end with a newline
    # Blank lines the cell began and ended with when it was read.
    edges: Tuple[int, int] = (0, 0)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def cell_lines(self) -> List[str]:
        """The cell's lines, masked lines restored. Blank lines that fixes left at
        its start or end (an import's blank line falls on a cell boundary) are dropped:
        between cells they mean nothing, and the cell did not have them."""
        lines = [self.masks.get(i, line) for i, line in enumerate(self.lines)]
        lead, trail = _blank_edges(lines)
        if lead < len(lines):
            lines = lines[max(0, lead - self.edges[0]) : len(lines) - max(0, trail - self.edges[1])]
        return lines

    def source(self) -> str:
        """The cell's source as the notebook stores it."""
        text = "".join(self.cell_lines())
        if self.newline_added and text.endswith("\n"):
            text = text[:-1]
        return text

    def replaced(self, hunks: Sequence[Tuple[int, int, List[str]]]) -> "Segment":
        """This segment with lines ``[a, b)`` replaced by ``lines`` for each hunk (in order)."""
        out: List[str] = []
        masks: Dict[int, str] = {}
        pos = 0
        for a, b, new in sorted(hunks, key=lambda h: (h[0], h[1])):
            touched = [i for i in range(a, b) if i in self.masks]
            if touched:
                raise Unwritable(f"it would change an IPython line (cell {self.cell}, line {touched[0] + 1})")
            if any(_MASK_MARK in line for line in new):
                raise Unwritable(f"it would copy an IPython line (cell {self.cell})")
            for i in range(pos, a):
                if i in self.masks:
                    masks[len(out)] = self.masks[i]
                out.append(self.lines[i])
            out.extend(new)
            pos = b
        for i in range(pos, len(self.lines)):
            if i in self.masks:
                masks[len(out)] = self.masks[i]
            out.append(self.lines[i])
        return Segment(self.cell, tuple(out), masks, self.newline_added, self.edges)


def _blank_edges(lines: Sequence[str]) -> Tuple[int, int]:
    """How many blank lines ``lines`` begin and end with."""
    lead = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    trail = next((i for i, line in enumerate(reversed(lines)) if line.strip()), len(lines))
    return lead, trail


_MASK_MARK = "gradlint-ipython-"


def _scan_line(line: str, depth: int, quote: Optional[str]) -> Tuple[int, Optional[str], bool, str]:
    """Bracket depth and open string after ``line``, whether it ends with a backslash
    continuation, and its last significant character outside strings and comments."""
    i, n, last, cont = 0, len(line), "", False
    while i < n:
        c = line[i]
        if quote is not None:
            if c == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote, last = None, c
                continue
            if len(quote) == 1 and c in "\r\n":
                quote = None  # an unterminated string: the parser will say so
            i += 1
            continue
        if c == "#":
            break
        if c in "\"'":
            quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else c
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif c == "\\" and not line[i + 1 :].strip("\r\n"):
            cont = True
            break
        if not c.isspace():
            last = c
        i += 1
    return depth, quote, cont, last


def _is_escape(line: str, depth: int, quote: Optional[str]) -> bool:
    stripped = line.lstrip()
    if stripped.startswith(_ESCAPES) or _ASSIGN_ESCAPE.match(stripped):
        return True
    new_depth, new_quote, cont, last = _scan_line(line, depth, quote)
    # ``obj?`` / ``obj.method??``: help, on one balanced line
    return last == "?" and new_depth == 0 and new_quote is None and not cont


def mask(source: str, counter: List[int]) -> Optional[Tuple[List[str], Dict[int, str]]]:
    """The lines of a code cell with IPython lines masked, and the originals by line index;
    None when the cell is not Python (a cell magic such as ``%%bash``).

    ``counter`` numbers the masks across the notebook, so that every masked line is
    unique text and a diff cannot confuse two of them."""
    lines = split_lines(source)
    runs: List[Tuple[int, int]] = []  # [first, last] line indexes of each IPython line
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines):
        m = _CELL_MAGIC.match(lines[i])
        if m is not None:
            if m.group(1) not in PYTHON_CELL_MAGICS:
                return None
            runs.append((i, i))
            i += 1
    depth, quote, cont = 0, None, False
    while i < len(lines):
        line = lines[i]
        if quote is None and depth == 0 and not cont and _is_escape(line, depth, quote):
            first = i
            # A backslash at the end continues the IPython line on the next one.
            while lines[i].rstrip("\r\n").endswith("\\") and i + 1 < len(lines):
                i += 1
            runs.append((first, i))
        else:
            depth, quote, cont, _ = _scan_line(line, depth, quote)
        i += 1
    out = list(lines)
    masks: Dict[int, str] = {}
    for first, last in runs:
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        for j in range(first, last + 1):
            body = lines[j].rstrip("\r\n")
            counter[0] += 1
            masks[j] = lines[j]
            out[j] = f"{indent}pass  # {_MASK_MARK}{counter[0]}{lines[j][len(body):]}"
    return out, masks


def _cell_text(source: Any) -> Optional[str]:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(x, str) for x in source):
        return "".join(source)
    return None


def _syntax_error(text: str) -> Optional[Any]:
    """The SourceSyntaxError of a cell that does not parse on its own, else None."""
    from gradlint.engine import SourceSyntaxError, parse

    # CPython's parser is the fast path; LibCST decides when it disagrees (it
    # accepts newer syntax than the running interpreter, such as ``match`` on 3.9).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings for escapes etc. are not ours to print
        try:
            compile(text, "<cell>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            return None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    try:
        parse(text)
    except SourceSyntaxError as err:
        if "async" in text:
            # PyTorch 0.3's `x.cuda(async=True)`: the engine checks the cell with the
            # argument renamed (GL005), so the cell belongs to the module.
            from gradlint.legacy_syntax import rename_async_arguments

            renamed, found = rename_async_arguments(text)
            if found:
                try:
                    parse(renamed)
                    return None
                except SourceSyntaxError:
                    pass
        return err
    return None


# -- the notebook -------------------------------------------------------------


class Notebook:
    """A ``.ipynb`` file: the module text the engine checks, and the way back to cells.

    Implements the document interface of :mod:`gradlint.files` (``text``,
    ``locate``, ``check_fix``, ``fix_fits``, ``fix_edits``, ``render``, ``diff``,
    ``problems``).
    Every module text a fix round produces is checked by :meth:`check_fix` and
    remembered with its cells, so positions and rendering work on any of them.
    """

    checks_fixes = True

    def __init__(self, path: Path, data: bytes, mtime_ns: int = 0, size: int = 0) -> None:
        self.path = path
        self.digest = hashlib.sha256(data).hexdigest()
        self.mtime_ns = mtime_ns
        self.size = size
        self.encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
        try:
            self.json = data.decode(self.encoding)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise NotebookError(f"cannot decode as UTF-8: invalid byte 0x{data[exc.start]:02x} on line {line}") from None
        try:
            nb = json.loads(self.json)
        except json.JSONDecodeError as exc:
            raise NotebookError(f"invalid notebook JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
        except RecursionError:
            raise NotebookError("invalid notebook JSON: nested too deeply") from None
        cells = _validate(nb)
        # Keep a pure-ASCII file pure ASCII: escape what fixes write as it was escaped.
        self._ensure_ascii = self.json.isascii()
        self._spans, self._separator = source_spans(self.json)
        segments: List[Segment] = []
        problems: List[Problem] = []
        counter = [0]
        for index, cell in enumerate(cells if _is_python(nb) else ()):
            if cell.get("cell_type") != "code":
                continue
            masked = mask(_cell_text(cell["source"]) or "", counter)
            if masked is None:
                continue
            lines, masks = masked
            added = not lines or not lines[-1].endswith(("\n", "\r"))
            if not lines:
                lines = ["\n"]
            elif added:
                lines[-1] += "\n"
                if len(lines) - 1 in masks:
                    masks[len(lines) - 1] += "\n"
            err = _syntax_error("".join(lines))
            if err is not None:
                problems.append(Problem(index + 1, err.line, err.column, err.detail))
                continue
            segments.append(Segment(index + 1, tuple(lines), masks, added, _blank_edges(lines)))
        self.segments: Tuple[Segment, ...] = tuple(segments)
        self.problems: Tuple[Problem, ...] = tuple(problems)
        self.text = "".join(seg.text for seg in segments)
        self._layouts: Dict[str, Tuple[Segment, ...]] = {self.text: self.segments}
        # The file's JSON text and cell spans for a fixed module text (see json_position).
        self._json_layouts: Dict[str, Tuple[str, List[Optional[SourceSpan]]]] = {}

    # -- positions ------------------------------------------------------------

    def locate(self, text: str, row: int, column: int) -> Tuple[Optional[int], int, int]:
        """(cell, row in cell, column) of a 1-based ``row`` of the module ``text``."""
        segments = self._layouts.get(text, self.segments)
        start = 1
        for seg in segments:
            if row < start + len(seg.lines):
                return seg.cell, row - start + 1, column
            start += len(seg.lines)
        if not segments:
            return None, row, column
        last = segments[-1]
        return last.cell, max(1, min(row - (start - len(last.lines)) + 1, len(last.lines))), column

    def json_position(self, text: str, cell: int, row: int, column: int) -> Tuple[int, int]:
        """The 1-based line and column (code points) in the notebook file itself of a
        1-based ``row`` and ``column`` of ``cell``, once the module ``text`` is written
        into it: where a viewer of the file (a code-scanning alert, a pull-request
        annotation) shows that code."""
        s, spans = self._json_layout(text)
        span = spans[cell - 1] if 0 < cell <= len(spans) else None
        if span is None:
            return 1, 1
        pieces = span.items if span.items is not None else ((span.start, span.end),)
        values = [json.loads(s[a:b]) for a, b in pieces]
        lines = split_lines("".join(values))
        offset = sum(len(line) for line in lines[: row - 1]) + column - 1
        pos = span.start
        for (a, b), value in zip(pieces, values):
            if offset < len(value):
                pos = a + raw_offset(s, a, offset)
                break
            offset -= len(value)
        else:
            if pieces:
                pos = pieces[-1][1] - 1
        line_start = s.rfind("\n", 0, pos) + 1
        return s.count("\n", 0, pos) + 1, pos - line_start + 1

    def _json_layout(self, text: str) -> Tuple[str, List[Optional[SourceSpan]]]:
        if text == self.text:
            return self.json, self._spans
        found = self._json_layouts.get(text)
        if found is None:
            s = self.render(text).decode(self.encoding)
            found = self._json_layouts[text] = (s, source_spans(s)[0])
        return found

    def cell_message(self, text: str, message: str) -> str:
        """``message`` with each "(line N)" of the module ``text`` named by its cell:
        "(cell 3, line 1)", as the user sees the notebook."""
        if "(line " not in message:
            return message

        def name(m: "re.Match[str]") -> str:
            cell, row, _ = self.locate(text, int(m.group(1)), 1)
            return f"(cell {cell}, line {row})" if cell is not None else m.group(0)

        return _LINE_REF.sub(name, message)

    def cell_texts(self, text: str) -> Dict[int, str]:
        """Each code cell's text in the module ``text`` (IPython lines as written), by
        cell number, with rows as ``locate`` counts them: for quoting a finding."""
        segments = self._layouts.get(text, self.segments)
        return {seg.cell: "".join(seg.masks.get(i, line) for i, line in enumerate(seg.lines)) for seg in segments}

    # -- fixes ----------------------------------------------------------------

    def check_fix(self, old: str, new: str) -> Optional[str]:
        """None when the module text ``new`` (fixed from ``old``) can be written back into
        the cells; else why not."""
        try:
            self._split(old, new)
        except Unwritable as exc:
            return str(exc)
        return None

    def fix_fits(self, text: str, fix: Fix, render: Callable[[], str]) -> bool:
        """Whether ``fix`` (on the module ``text``) can be written back.

        Most fixes edit nodes inside one cell and away from IPython lines: that
        is known from their spans, without rendering the module (which costs a
        pass over the whole tree per fix). Others are rendered and checked.
        """
        layout = self._layouts.get(text)
        if layout is not None and _inside_cells(layout, fix):
            return True
        try:
            return self.check_fix(text, render()) is None
        except Exception:  # a fix that cannot be rendered cannot be written either
            return False

    def fix_edits(self, old: str, new: str) -> Optional[Tuple[TextEdit, ...]]:
        """The change from ``old`` to ``new`` as text edits relative to each cell, or
        None when it cannot be written back."""
        try:
            before, after = self._layouts[old], self._split(old, new)
        except (Unwritable, KeyError):
            return None
        edits: List[TextEdit] = []
        for a, b in zip(before, after):
            if a.lines != b.lines:
                for e in text_edits(a.source(), b.source()):
                    edits.append(TextEdit(e.content, e.row, e.column, e.end_row, e.end_column, cell=a.cell))
        return tuple(edits)

    def _split(self, old: str, new: str) -> Tuple[Segment, ...]:
        """The cells of the fixed module text ``new``, or Unwritable.

        A line diff gives each changed hunk. A hunk that changes lines of two
        cells is refused; one inside a cell goes to that cell; new lines at a
        cell boundary may go to the cell on either side: of the ways to split
        them, the first (most text kept in the cell it replaces; then imports
        joining the cell before, other code the cell after) that leaves every
        cell parsing on its own wins.
        """
        found = self._layouts.get(new)
        if found is not None:
            return found
        segments = self._layouts[old]
        old_lines = [line for seg in segments for line in seg.lines]
        new_lines = split_lines(new)
        starts = [0]
        for seg in segments:
            starts.append(starts[-1] + len(seg.lines))
        hunks: List[List[_Share]] = []  # per diff hunk, its ways of sharing, best first
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                hunks.append(_shares(i1, i2, new_lines[j1:j2], old_lines, starts, [seg.cell for seg in segments]))
        picks = [0] * len(hunks)
        parses: Dict[str, bool] = {}

        def build() -> Tuple[Segment, ...]:
            by_segment: Dict[int, List[Tuple[int, int, List[str]]]] = {}
            for options, pick in zip(hunks, picks):
                for k, a, b, lines in options[pick]:
                    by_segment.setdefault(k, []).append((a - starts[k], b - starts[k], lines))
            return tuple(segments[k].replaced(by_segment[k]) if k in by_segment else seg for k, seg in enumerate(segments))

        def runs(seg: Segment) -> bool:
            text = seg.text
            if text not in parses:
                parses[text] = _syntax_error(text) is None
            return parses[text]

        why = ""
        for h, options in enumerate(hunks):
            if len(options) == 1:
                continue
            touched = {k for option in options for k, _, _, _ in option}
            for pick in range(len(options)):
                picks[h] = pick
                try:
                    layout = build()
                except Unwritable as exc:
                    why = str(exc)
                    continue
                if all(runs(layout[k]) for k in touched if layout[k] is not segments[k]):
                    break
            else:
                picks[h] = 0
        layout = build()  # raises Unwritable for a change to an IPython line
        for before, after in zip(segments, layout):
            if after is not before and not runs(after):
                raise Unwritable(why or f"cell {after.cell} would no longer run on its own (the change spans cells)")
        if "".join(seg.text for seg in layout) != new:  # pragma: no cover - a bug in the split
            raise Unwritable("the fixed code could not be split into cells")
        self._layouts[new] = layout
        return layout

    # -- writing --------------------------------------------------------------

    def changed_cells(self, new: str) -> List[Tuple[Segment, Segment]]:
        layout = self._layouts.get(new)
        if layout is None:
            raise WriteError("the fixed code cannot be written back into the notebook's cells")
        return [(a, b) for a, b in zip(self.segments, layout) if a.source() != b.source()]

    def render(self, new: str) -> bytes:
        """The notebook's bytes with the cells of module text ``new``: only the JSON of
        the changed cells' ``source`` values differs."""
        replacements = []
        for old_seg, new_seg in self.changed_cells(new):
            span = self._spans[old_seg.cell - 1]
            assert span is not None  # code cells were validated to have a source
            replacements.append((span, self._source_json(span, new_seg.source())))
        out = self.json
        for span, value in sorted(replacements, key=lambda r: r[0].start, reverse=True):
            out = out[: span.start] + value + out[span.end :]
        return out.encode(self.encoding)

    def _source_json(self, span: SourceSpan, source: str) -> str:
        if span.items is None:
            return json.dumps(source, ensure_ascii=self._ensure_ascii)
        # nbformat's own split, so that a notebook saved again by Jupyter reads the same
        lines = source.splitlines(keepends=True)
        if not lines:
            return "[]"
        s = self.json
        raw = [s[a:b] for a, b in span.items]
        old_values = [json.loads(r) for r in raw]
        out: List[Optional[str]] = [None] * len(lines)
        matcher = difflib.SequenceMatcher(a=old_values, b=lines, autojunk=False)
        for block in matcher.get_matching_blocks():
            for n in range(block.size):
                out[block.b + n] = raw[block.a + n]
        items = [r if r is not None else json.dumps(line, ensure_ascii=self._ensure_ascii) for r, line in zip(out, lines)]
        opening, separator, closing = self._list_layout(span)
        return "[" + opening + separator.join(items) + closing + "]"

    def _list_layout(self, span: SourceSpan) -> Tuple[str, str, str]:
        """The whitespace after ``[``, between items (with the comma) and before ``]``."""
        s = self.json
        items = span.items or ()
        if items:
            opening = s[span.start + 1 : items[0][0]]
            closing = s[items[-1][1] : span.end - 1]
            if len(items) > 1:
                return opening, s[items[0][1] : items[1][0]], closing
            return opening, "," + (opening if "\n" in opening else self._separator[1:]), closing
        # An empty list: indent one level deeper than the "source" key, in the file's unit.
        line_start = s.rfind("\n", 0, span.key_start) + 1
        key_indent = s[line_start : span.key_start]
        first = skip(s, skip(s, 0) + 1)
        unit = s[s.rfind("\n", 0, first) + 1 : first]
        if "\n" not in self._separator or key_indent.strip() or not unit or unit.strip():
            return "", self._separator, ""
        return "\n" + key_indent + unit, ",\n" + key_indent + unit, "\n" + key_indent

    def diff(self, new: str, label: str) -> str:
        """A unified diff of each changed cell (``label:cell N``)."""
        parts = []
        for old_seg, new_seg in self.changed_cells(new):
            name = f"{label}:cell {old_seg.cell}"
            parts.append("".join(difflib.unified_diff(old_seg.cell_lines(), new_seg.cell_lines(), fromfile=name, tofile=name)))
        return "".join(parts)


def _inside_cells(layout: Sequence[Segment], fix: Fix) -> bool:
    """Whether each edit of ``fix`` lies in one cell and off its IPython lines. Its
    imports fit anyway: a removed import is a whole statement of one cell, an added
    one goes where the cells still parse (see ``_shares``)."""
    starts = [1]
    for seg in layout:
        starts.append(starts[-1] + len(seg.lines))
    for edit in fix.edits:
        (first, _), (last, _) = edit.span
        k = bisect.bisect_right(starts, first) - 1
        if not 0 <= k < len(layout) or last >= starts[k + 1]:
            return False
        if any(first <= starts[k] + i <= last for i in layout[k].masks):
            return False
    return True


def _validate(nb: Any) -> List[Mapping[str, Any]]:
    if not isinstance(nb, dict):
        raise NotebookError("not a Jupyter notebook: the top level is not a JSON object")
    version = nb.get("nbformat")
    if isinstance(version, int) and version < 4:
        raise NotebookError(f"nbformat {version} notebooks are not supported; convert with `jupyter nbconvert --to notebook`")
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: no 'cells' list")
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not a JSON object")
        if cell.get("cell_type") == "code" and _cell_text(cell.get("source")) is None:
            raise NotebookError(f"cell {number}: 'source' is not a string or a list of strings")
    return cells


def _is_python(nb: Mapping[str, Any]) -> bool:
    """False for notebooks of another kernel language (R, Julia...): nothing to check."""
    meta = nb.get("metadata")
    if not isinstance(meta, dict):
        return True
    for table, key in (("language_info", "name"), ("kernelspec", "language")):
        value = meta.get(table, {}).get(key) if isinstance(meta.get(table), dict) else None
        if isinstance(value, str) and value:
            return value.lower() == "python"
    return True


# One way to share a diff hunk among cells: (segment, a, b, new lines) per cell,
# old lines [a, b) being module line indexes.
_Share = List[Tuple[int, int, int, List[str]]]
_MAX_SHARES = 20000


def _shares(
    i1: int, i2: int, new: List[str], old: Sequence[str], starts: Sequence[int], cells: Sequence[int]
) -> List[_Share]:
    """The ways to share the hunk (old lines ``[i1, i2)`` -> ``new``) among the cells it
    touches (those it changes, and those that end where it begins or begin where it
    ends), best first.

    Each new line is scored by how much it resembles the old lines of each cell;
    a split scores the sum for the cell each line lands in. When the hunk changes
    lines of several cells, only the best splits are offered: a worse one would
    move code from one cell to another. Otherwise the cells beside it may receive
    new lines; ties send imports to the cell before, other code to the cell after.
    """
    n = len(starts) - 1
    overlapped = [k for k in range(n) if starts[k] < i2 and starts[k + 1] > i1]
    first, last = (overlapped[0], overlapped[-1]) if overlapped else (n, -1)
    ks = [j for j in range(n) if starts[j] <= i1 <= starts[j + 1]] if not overlapped else (
        [j for j in range(first) if starts[j + 1] == i1] + overlapped + [j for j in range(last + 1, n) if starts[j] == i2]
    )
    parts = [(j, max(i1, starts[j]), max(i1, min(i2, starts[j + 1]))) for j in ks]
    if len(parts) == 1:
        j, a, b = parts[0]
        return [[(j, a, b, new)]]
    cuts = _monotone_cuts(len(new), len(parts))
    if len(cuts) > _MAX_SHARES:
        raise Unwritable(f"the change at cell {cells[ks[0]]} is too large to share among cells")
    # like[i][j]: how much new line j resembles the old lines of part i
    like = []
    for _, a, b in parts:
        olds = [line.strip() for line in old[a:b] if line.strip()]
        row = [0]
        for line in new:
            text = line.strip()
            best = max((difflib.SequenceMatcher(None, text, o).quick_ratio() for o in olds), default=0.0) if text else 0.0
            row.append(row[-1] + round(best * 1000))
        like.append(row)
    later = not _only_imports(new)  # code attaches to what follows it, imports to imports

    def score(cut: Tuple[int, ...]) -> int:
        bounds = (0, *cut, len(new))
        return sum(like[i][bounds[i + 1]] - like[i][bounds[i]] for i in range(len(parts)))

    scored = sorted(cuts, key=lambda cut: (-score(cut), sum(cut) if later else -sum(cut)))
    if len(overlapped) > 1:
        best = score(scored[0])
        scored = [cut for cut in scored if score(cut) == best]

    def share(cut: Tuple[int, ...]) -> _Share:
        bounds = (0, *cut, len(new))
        return [(k, a, b, new[bounds[i] : bounds[i + 1]]) for i, (k, a, b) in enumerate(parts)]

    return [share(cut) for cut in scored]


def _only_imports(lines: Sequence[str]) -> bool:
    code = [line.strip() for line in lines if line.strip()]
    return bool(code) and all(line.startswith(("import ", "from ")) for line in code)


def _monotone_cuts(n: int, parts: int) -> List[Tuple[int, ...]]:
    """Every way to cut ``n`` lines into ``parts`` consecutive (possibly empty) runs,
    as the run boundaries; stops counting past _MAX_SHARES."""
    out: List[Tuple[int, ...]] = [()]
    for _ in range(parts - 1):
        out = [(*cut, b) for cut in out for b in range((cut[-1] if cut else 0), n + 1)]
        if len(out) > _MAX_SHARES:
            break
    return out
