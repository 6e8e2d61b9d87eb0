"""``gradlint check --add-noqa``: a ``# noqa: CODE`` comment on the line of every finding.

The usual way to adopt a linter on a legacy code base: record today's findings
in the code, then hold new code to the rules. As in Ruff, the comment goes on
the line where the finding starts (the line ``# noqa`` is matched against), or,
where that line cannot take a comment (a backslash continuation, a multi-line
string), at the end of its logical line, which covers all of it; codes already listed in a ``# noqa: ...`` there are kept and merged in sorted
order, and nothing else in the file changes. Running it again adds nothing.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Set, Tuple, Union

from gradlint.catalog import DIRECTIVE_CODES, PARSE_ERROR
from gradlint.config import Settings
from gradlint.noqa import NOQA_RE, NoqaMap
from gradlint.session import Session

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


@dataclass
class NoqaRun:
    added: int = 0
    errors: List[str] = field(default_factory=list)  # "path: message"
    # "path:row:col: CODE": findings no comment could silence (they stay reported).
    unplaced: List[str] = field(default_factory=list)


def _comment_starts(source: str) -> Dict[int, int]:
    """The column of the comment on each line that has one."""
    out: Dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def add_noqa(source: str, codes_by_line: Dict[int, Set[str]]) -> Tuple[str, int, List[int]]:
    """``source`` with the codes of ``codes_by_line`` (1-based rows) in a ``# noqa``
    comment where each silences its finding, how many lines got a directive
    added or extended, and the rows whose findings no comment can silence.

    A row that cannot take a comment (it ends inside a multi-line string or
    with a backslash continuation) gets its directive at the end of its
    logical line, where ``# noqa`` covers every physical line of it."""
    lines = _LINE.findall(source)
    if lines and lines[-1] == "":
        lines.pop()
    directives = NoqaMap(source)
    comments = _comment_starts(source)
    wanted: Dict[int, Set[str]] = {}
    unplaced: List[int] = []
    for row in sorted(codes_by_line):
        target = directives.placement(row)
        if target is None or not 0 < target <= len(lines):
            unplaced.append(row)
            continue
        wanted.setdefault(target, set()).update(codes_by_line[row])
    added = 0
    for row in sorted(wanted):
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        start = comments.get(row)
        match = NOQA_RE.search(body, start) if start is not None else None
        if match is not None:
            listed = match.group("codes")
            if listed is None:  # a bare `# noqa` already silences everything
                continue
            have = {c for c in re.split(r"[,\s]+", listed.upper().strip()) if c}
            codes = have | wanted[row]
            if codes == have:
                continue
            body = f"{body[:match.start()]}# noqa: {', '.join(sorted(codes))}{body[match.end():]}"
        else:
            body = f"{body.rstrip()}  # noqa: {', '.join(sorted(wanted[row]))}"
        lines[row - 1] = body + ending
        added += 1
    return "".join(lines), added, unplaced


def add_noqa_paths(files: Sequence[Path], settings: Union[Session, Settings]) -> NoqaRun:
    """Add ``# noqa`` comments for every finding in ``files`` (notebooks too), writing
    each file changed. ``settings``: the run's session (bare settings: one is built,
    with the index of ``files``), so that the comments go where ``check`` reports."""
    from gradlint.checking import check_document
    from gradlint.files import ReadError, WriteError, read_document, write_source
    from gradlint.runner import display_path

    session = settings if isinstance(settings, Session) else Session(settings).indexed(files)

    run = NoqaRun()
    for path in files:
        display = display_path(path)
        try:
            doc = read_document(path)
        except ReadError:
            continue  # reported by `check`; a comment cannot silence it
        result = check_document(display, doc.text, session)
        wanted: Dict[int, Set[str]] = {}
        where: Dict[int, List[str]] = {}
        for f in result.findings:
            # A directive cannot silence a syntax error, and one that silenced a
            # finding about a directive would only hide a directive to clean up.
            if f.code != PARSE_ERROR and f.code not in DIRECTIVE_CODES:
                wanted.setdefault(f.start[0], set()).add(f.code)
                where.setdefault(f.start[0], []).append(f"{display}:{f.start[0]}:{f.start[1] + 1}: {f.code}")
        if not wanted:
            continue
        new, added, unplaced = add_noqa(doc.text, wanted)
        for row in unplaced:
            run.unplaced.extend(where[row])
        if not added:
            continue
        refused = doc.check_fix(doc.text, new)
        if refused is not None:
            run.errors.append(f"{display}: noqa comments not added: {refused}")
            continue
        try:
            write_source(doc, new)
        except WriteError as exc:
            run.errors.append(f"{display}: {exc}")
            continue
        run.added += added
    return run
