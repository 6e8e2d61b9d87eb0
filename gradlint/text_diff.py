"""Text against text: the unified diff ``--diff`` prints, and the text edits that
turn one text into another (JSON and SARIF edits, an editor's quick fixes)."""

from __future__ import annotations

import bisect
import difflib
from typing import Dict, List, Sequence, Tuple

from gradlint.parsing import split_lines
from gradlint.results import TextEdit


def unified_diff(label: str, old: str, new: str, context: int = 3) -> str:
    """A patch turning ``old`` into ``new`` that ``git apply`` takes: a hunk per
    change (with ``context`` lines around it; changes that close share one)."""
    a, b = split_lines(old), split_lines(new)
    groups = list(_Opcodes(a, b).get_grouped_opcodes(context))
    if not groups or groups == [[("equal", 0, len(a), 0, len(b))]] or not a and not b:
        return ""
    out = [f"--- {label}\n", f"+++ {label}\n"]
    for group in groups:
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_hunk_range(i1, i2)} +{_hunk_range(j1, j2)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [_diff_line(" ", line) for line in a[i1:i2]]
                continue
            out += [_diff_line("-", line) for line in a[i1:i2]]
            out += [_diff_line("+", line) for line in b[j1:j2]]
    return "".join(out)


def _hunk_range(start: int, stop: int) -> str:
    # As difflib writes it: 1-based start, the length if not 1 (an empty range
    # starts at the line before it).
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def _diff_line(mark: str, line: str) -> str:
    return mark + line if line.endswith(("\n", "\r")) else f"{mark}{line}\n\\ No newline at end of file\n"


# Below this many line pairs, a stretch between anchors is matched by difflib itself.
_SMALL_GAP = 40_000


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> List[Tuple[str, int, int, int, int]]:
    """difflib's opcodes turning lines ``a`` into ``b``, found as patience diff finds
    them: the common start and end, then the lines found once in each side, in
    order, as anchors, recursively between them; difflib (without its junk
    heuristic, which on a long file calls its blank lines junk and answers with one
    hunk for the whole file) only in the small stretches left. Linear in the
    length of the texts where changes are few, as fixes are."""
    ops: List[Tuple[str, int, int, int, int]] = []
    _match(a, b, 0, len(a), 0, len(b), ops)
    merged: List[Tuple[str, int, int, int, int]] = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if merged and merged[-1][0] == op[0] or merged and merged[-1][0] != "equal" and op[0] != "equal":
            tag = op[0] if merged[-1][0] == op[0] else "replace"
            prev = merged[-1]
            merged[-1] = (tag, prev[1], op[2], prev[3], op[4])
        else:
            merged.append(op)
    return [_tagged(op) for op in merged]


def _tagged(op: Tuple[str, int, int, int, int]) -> Tuple[str, int, int, int, int]:
    tag, i1, i2, j1, j2 = op
    if tag == "equal":
        return op
    return ("delete" if j1 == j2 else "insert" if i1 == i2 else "replace", i1, i2, j1, j2)


def _match(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int, ops: List[Tuple[str, int, int, int, int]]) -> None:
    start_a, start_b = alo, blo
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo += 1
        blo += 1
    tail = 0
    while ahi - tail > alo and bhi - tail > blo and a[ahi - tail - 1] == b[bhi - tail - 1]:
        tail += 1
    ops.append(("equal", start_a, alo, start_b, blo))
    end_a, end_b = ahi, bhi
    ahi, bhi = ahi - tail, bhi - tail
    if alo == ahi or blo == bhi:
        ops.append(("replace", alo, ahi, blo, bhi))
    else:
        anchors = _anchors(a, b, alo, ahi, blo, bhi)
        if anchors:
            i, j = alo, blo
            for ai, bj in anchors:
                _match(a, b, i, ai, j, bj, ops)
                ops.append(("equal", ai, ai + 1, bj, bj + 1))
                i, j = ai + 1, bj + 1
            _match(a, b, i, ahi, j, bhi, ops)
        elif (ahi - alo) * (bhi - blo) <= _SMALL_GAP:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                ops.append((tag, alo + i1, alo + i2, blo + j1, blo + j2))
        else:
            ops.append(("replace", alo, ahi, blo, bhi))
    ops.append(("equal", ahi, end_a, bhi, end_b))


def _anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> List[Tuple[int, int]]:
    """The longest run, in order on both sides, of lines found exactly once on each;
    where there is none (a file of repeated blocks), of lines found as many times on
    each side, the k-th on one paired with the k-th on the other."""
    count_a: Dict[str, int] = {}
    for i in range(alo, ahi):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
    where_b: Dict[str, List[int]] = {}
    for j in range(blo, bhi):
        where_b.setdefault(b[j], []).append(j)
    pairs = [(i, where_b[a[i]][0]) for i in range(alo, ahi) if count_a[a[i]] == 1 and len(where_b.get(a[i], ())) == 1]
    if not pairs:
        seen: Dict[str, int] = {}
        for i in range(alo, ahi):
            found = where_b.get(a[i])
            if found is not None and len(found) == count_a[a[i]]:
                k = seen.get(a[i], 0)
                seen[a[i]] = k + 1
                pairs.append((i, found[k]))
    if not pairs:
        return []
    # Longest increasing run of b positions (patience sorting).
    tops: List[int] = []
    top_index: List[int] = []
    back: List[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tops, j)
        if at == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[at] = j
            top_index[at] = k
        back[k] = top_index[at - 1] if at else -1
    out: List[Tuple[int, int]] = []
    k = top_index[-1]
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    out.reverse()
    return out


class _Opcodes(difflib.SequenceMatcher):
    """difflib's grouping of opcodes into hunks, over :func:`line_opcodes`."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        self.a, self.b = a, b
        self._ops = line_opcodes(a, b)

    def get_opcodes(self) -> List[Tuple[str, int, int, int, int]]:  # type: ignore[override]
        return list(self._ops)


def text_edits(old: str, new: str) -> List[TextEdit]:
    """The smallest text edits turning ``old`` into ``new``, one per changed hunk."""
    old_lines = split_lines(old)
    new_lines = split_lines(new)
    line_starts = [0]
    for line in old_lines:
        line_starts.append(line_starts[-1] + len(line))
    if old_lines and not old_lines[-1].endswith(("\n", "\r")):
        # No line after the last one: its end is a position on it, not on a line past it.
        line_starts.pop()

    def position(offset: int) -> Tuple[int, int]:
        # bisect by hand: the line whose start is the last one <= offset
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - line_starts[lo] + 1

    edits: List[TextEdit] = []
    for tag, i1, i2, j1, j2 in line_opcodes(old_lines, new_lines):
        if tag == "equal":
            continue
        a = "".join(old_lines[i1:i2])
        b = "".join(new_lines[j1:j2])
        start = 0
        while start < min(len(a), len(b)) and a[start] == b[start]:
            start += 1
        end_a, end_b = len(a), len(b)
        while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
            end_a -= 1
            end_b -= 1
        base = line_starts[i1]
        row, col = position(base + start)
        end_row, end_col = position(base + end_a)
        edits.append(TextEdit(b[start:end_b], row, col, end_row, end_col))
    return edits
