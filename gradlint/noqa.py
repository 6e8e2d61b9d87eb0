"""``# noqa`` directives: which findings they silence, where a new one works,
and which of them silence nothing.

As in Ruff, a directive silences a finding on its own line; and since a
comment cannot follow a backslash continuation or sit inside a multi-line
string, a directive at the end of a logical line also silences a finding on
any physical line of that logical line. The file is tokenized once for all
three questions.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

from gradlint import catalog
from gradlint.results import Finding

NOQA_RE = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
# `# noqa GL101`: codes without the colon, which flake8 and Ruff read as a
# blanket directive that silences every code on the line.
_NO_COLON_RE = re.compile(r"#\s*noqa\s+(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
_CODE_RE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_CODE_SPLIT = re.compile(r"[,\s]+")
# gradlint judges only its own codes: a `# noqa: E501` belongs to another tool.
_OWN_PREFIX = "GL"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass
class Directive:
    """One ``# noqa`` comment: where it is, and the codes it lists (None: all)."""

    row: int
    # Columns (0-based) of the whole comment token, and of the directive in it.
    comment_column: int
    comment: str
    start: int
    end: int
    codes: Optional[Tuple[str, ...]]
    # Codes listed after `noqa` without a colon (the directive is a blanket one).
    no_colon: Tuple[str, ...] = ()
    # Which comment of the file this is (0-based, in source order): the tree's
    # comments come in the same order, so a fix finds its node by this.
    index: int = 0
    used: Set[str] = field(default_factory=set)
    used_blanket: bool = False


class NoqaMap:
    """The directives of one source text, and its logical lines."""

    def __init__(self, source: str, read: bool = True) -> None:
        self.source = source
        self.directives: Dict[int, Directive] = {}
        # Row -> last row of its logical line, for rows of multi-row logical lines.
        self.logical_end: Dict[int, int] = {}
        # Rows a trailing comment cannot be added to (inside a multi-line string
        # or followed by a backslash continuation).
        self.no_comment: Set[int] = set()
        self.tokenized = False
        self._lines: Optional[List[str]] = None
        # The reading loop's state (start row of the open logical line, last row
        # of code in it, comments so far), kept between calls for PlacementReader.
        self._state: Tuple[Optional[int], int, int] = (None, 0, 0)
        if read:
            self._read(source)

    def _read(self, source: str) -> None:
        try:
            # newline=None: a lone "\r" ends a line too (rows stay those of the source).
            tokens = list(tokenize.generate_tokens(io.StringIO(source, newline=None).readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return
        self.tokenized = True
        self._take(iter(tokens), None)

    def _take(self, tokens: Iterator[tokenize.TokenInfo], until: Optional[int]) -> bool:
        """Reads ``tokens`` into the map; with ``until``, stops after the logical
        line that holds or passes that row (all rows up to it are then settled).
        Whether the tokens ran out."""
        first, last_code_row, comments = self._state
        try:
            for tok in tokens:
                kind = tok.type
                if kind == tokenize.COMMENT:
                    self._directive(tok, comments)
                    comments += 1
                    continue
                if kind in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER):
                    continue
                if kind == tokenize.NEWLINE:
                    if first is not None and last_code_row > first:
                        for row in range(first, last_code_row + 1):
                            self.logical_end[row] = last_code_row
                    first = None
                    if until is not None and tok.start[0] >= until:
                        return False
                    continue
                if first is None:
                    first = tok.start[0]
                elif tok.start[0] > last_code_row and not self._bracketed_gap(last_code_row):
                    # The logical line went on to a new row without a bracket: a
                    # backslash ends the row before.
                    self.no_comment.add(last_code_row)
                if tok.end[0] > tok.start[0]:
                    # FSTRING_MIDDLE and friends (3.12+) span rows as strings do.
                    self.no_comment.update(range(tok.start[0], tok.end[0]))
                last_code_row = tok.end[0]
        finally:
            self._state = (first, last_code_row, comments)
        return True

    def _bracketed_gap(self, row: int) -> bool:
        # Rows joined inside brackets end in NL tokens, which the loop skips;
        # rows joined by a backslash end in the backslash itself.
        if self._lines is None:
            # Python source lines end with \r\n, \r or \n only (not at form feeds).
            self._lines = _LINE.findall(self.source)
        line = self._lines[row - 1] if 0 < row <= len(self._lines) else ""
        return not line.rstrip("\r\n").rstrip(" \t\f").endswith("\\")

    def _directive(self, tok: tokenize.TokenInfo, index: int) -> None:
        text = tok.string
        match = NOQA_RE.search(text)
        if match is None:
            return
        codes = match.group("codes")
        listed = tuple(c for c in _CODE_SPLIT.split(codes.upper().strip()) if c) if codes else None
        start, end = match.start(), match.end()
        no_colon: Tuple[str, ...] = ()
        if listed is None:
            loose = _NO_COLON_RE.match(text, match.start())
            if loose is not None:
                no_colon = tuple(c.upper() for c in _CODE_RE.findall(loose.group("codes")))
                end = loose.end()
        row = tok.start[0]
        self.directives[row] = Directive(row, tok.start[1], text, start, end, listed, no_colon, index)

    def covering(self, row: int) -> List[Directive]:
        """The directives that apply to a finding on ``row``: its own line's,
        and that at the end of its logical line."""
        out = []
        own = self.directives.get(row)
        if own is not None:
            out.append(own)
        end = self.logical_end.get(row)
        if end is not None and end != row:
            at_end = self.directives.get(end)
            if at_end is not None:
                out.append(at_end)
        return out

    def suppresses(self, finding: Finding, explicit: bool = False) -> bool:
        """Whether a directive silences ``finding``; marks the directive used.
        ``explicit``: only a directive that names the code does (a finding about
        a blanket directive is not silenced by that directive itself)."""
        hit = False
        for d in self.covering(finding.start[0]):
            if d.codes is None:
                if explicit:
                    continue
                d.used_blanket = True
                hit = True
            elif finding.code in d.codes:
                d.used.add(finding.code)
                hit = True
        return hit

    def placement(self, row: int) -> Optional[int]:
        """The row where a ``# noqa`` for a finding on ``row`` works: the row
        itself when it can take a comment, else the end of its logical line;
        None when neither can take one."""
        if row not in self.no_comment:
            return row
        end = self.logical_end.get(row)
        if end is not None and end not in self.no_comment:
            return end
        return None


class PlacementReader:
    """``NoqaMap(source).placement(row)``, reading only as much of ``source`` as
    the rows asked for need.

    Where a ``# noqa`` works for a row depends only on the tokens up to the end
    of the row's logical line, except that a file that does not tokenize to its
    end has no map at all (every row is its own place). So a row that takes a
    comment in the part read is its own place either way, and only a row that
    does not (inside a multi-line string, before a backslash) needs the rest of
    the file read. A finding on the first line of a 20 MB generated table costs
    one line's tokens, not the whole file's.
    """

    def __init__(self, source: str) -> None:
        self._map = NoqaMap(source, read=False)
        self._tokens: Optional[Iterator[tokenize.TokenInfo]] = None
        self._done = False  # every token read
        self._failed = False  # the source does not tokenize
        self._read_to = 0  # rows up to this one are settled

    def __call__(self, row: int) -> Optional[int]:
        """The row where a ``# noqa`` for a finding on ``row`` works, as
        ``NoqaMap.placement``."""
        if row > self._read_to:
            self._advance(row)
        if self._failed or row not in self._map.no_comment:
            return row
        self._advance(None)
        return row if self._failed else self._map.placement(row)

    def _advance(self, until: Optional[int]) -> None:
        if self._done or self._failed:
            return
        if self._tokens is None:
            self._tokens = tokenize.generate_tokens(io.StringIO(self._map.source, newline=None).readline)
        try:
            self._done = self._map._take(self._tokens, until)
        except (tokenize.TokenError, IndentationError, SyntaxError):
            self._failed = True
            return
        self._map.tokenized = self._done
        self._read_to = until if until is not None and not self._done else sys.maxsize


def filter_findings(findings: List[Finding], noqa: NoqaMap, explicit: bool = False) -> List[Finding]:
    return [f for f in findings if not noqa.suppresses(f, explicit)]


# ``(directive, new comment text or None to drop the comment, applicability,
# title) -> Fix or None``: the caller builds fixes on its tree (``comment_fix``).
FixBuilder = Callable[[Directive, Optional[str], str, str], object]


def directive_findings(
    noqa: NoqaMap,
    enabled: FrozenSet[str],
    report: FrozenSet[str],
    build_fix: Optional[FixBuilder] = None,
) -> List[Finding]:
    """Unused and invalid directives, as findings of the codes in ``report``.

    ``enabled`` are the codes checked in this file: a listed code that is
    enabled yet silenced nothing is unused. Blanket directives are left alone
    (they may serve another tool on the same line), and so are codes of other
    tools."""
    unused_code, invalid_code = catalog.UNUSED_NOQA, catalog.INVALID_NOQA
    known = frozenset(catalog.load())
    docs = catalog.load()
    out: List[Finding] = []
    for d in sorted(noqa.directives.values(), key=lambda d: d.row):
        col = d.comment_column
        span = ((d.row, col + d.start), (d.row, col + d.end))
        if d.codes is None:
            own = [c for c in d.no_colon if c.startswith(_OWN_PREFIX)]
            if own and invalid_code in report:
                shown = ", ".join(f"`{c}`" for c in own)
                message = docs[invalid_code].format_message(
                    detail=f"`# noqa {' '.join(own)}` has no colon, so it silences every code on the line, not only {shown}"
                )
                fixed = d.comment[: d.start] + "# noqa: " + ", ".join(d.no_colon) + d.comment[d.end :]
                fix = build_fix(d, fixed, "unsafe", f"Add the colon: `# noqa: {', '.join(d.no_colon)}`") if build_fix else None
                out.append(Finding(invalid_code, message, *span, fix=fix))  # type: ignore[arg-type]
            continue
        own = [c for c in d.codes if c.startswith(_OWN_PREFIX)]
        unknown = [c for c in own if c not in known]
        unused = [
            c
            for c in own
            if c in known and c in enabled and c not in d.used and c not in (unused_code, invalid_code)
        ]
        if unknown and invalid_code in report:
            message = docs[invalid_code].format_message(
                detail=f"unknown rule code{'s' if len(unknown) > 1 else ''} in `# noqa`: {', '.join(f'`{c}`' for c in unknown)}"
            )
            fix = build_fix(d, _without_codes(d, unknown), "safe", "Remove the unknown codes from the `noqa` directive") if build_fix else None
            out.append(Finding(invalid_code, message, *span, fix=fix))  # type: ignore[arg-type]
        if unused and unused_code in report:
            message = docs[unused_code].format_message(codes=", ".join(f"`{c}`" for c in unused))
            drop = unused + ([c for c in unknown] if invalid_code not in report else [])
            fix = build_fix(d, _without_codes(d, drop), "safe", docs[unused_code].fix_title) if build_fix else None
            out.append(Finding(unused_code, message, *span, fix=fix))  # type: ignore[arg-type]
    return out


def _without_codes(d: Directive, drop: Sequence[str]) -> Optional[str]:
    """The comment with ``drop`` taken out of the directive; None when nothing
    of the comment is left."""
    assert d.codes is not None
    keep = [c for c in d.codes if c not in drop]
    before, after = d.comment[: d.start], d.comment[d.end :]
    directive = f"# noqa: {', '.join(keep)}" if keep else ""
    text = (before.rstrip() + ("  " if before.strip() and directive else "") + directive) if directive else before.rstrip()
    rest = after.strip()
    if rest:
        text = (text + "  " + rest) if text else ("# " + rest.lstrip("#").lstrip() if not rest.startswith("#") else rest)
    return text or None


def codes_of(directives: Iterable[Directive]) -> Set[str]:
    return {c for d in directives if d.codes for c in d.codes}


def comment_fix(module: object, directive: Directive, new_text: Optional[str], applicability: str, title: str) -> object:
    """A fix that turns ``directive``'s comment into ``new_text`` (None: drop
    the comment), on ``module``, the parsed file; None when the comment's node
    cannot be found."""
    import libcst as cst

    from gradlint.fix import Edit, Fix

    holders: List[Tuple[cst.CSTNode, cst.Comment]] = []

    class _Comments(cst.CSTVisitor):
        def visit_TrailingWhitespace(self, node: cst.TrailingWhitespace) -> None:
            if node.comment is not None:
                holders.append((node, node.comment))

        def visit_EmptyLine(self, node: cst.EmptyLine) -> None:
            if node.comment is not None:
                holders.append((node, node.comment))

    assert isinstance(module, cst.Module)
    module.visit(_Comments())
    if directive.index >= len(holders):
        return None
    holder, comment = holders[directive.index]
    if comment.value != directive.comment:
        return None
    row, col = directive.row, directive.comment_column
    span = ((row, col), (row, col + len(directive.comment)))
    new: Union[cst.CSTNode, cst.RemovalSentinel]
    if new_text is not None:
        edit = Edit("replace", comment, span, new=cst.Comment(new_text))
    elif isinstance(holder, cst.TrailingWhitespace):
        new = holder.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
        edit = Edit("replace", holder, span, new=new)
    else:
        edit = Edit("replace", holder, span, new=cst.RemovalSentinel.REMOVE)
    return Fix(applicability, title, (edit,))
