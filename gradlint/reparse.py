"""The parse of a round's fixed text, from the parse of the top-level statements the
fixes rebuilt and the nodes of those they left alone.

A round of the fix loop changes a few top-level statements of a long file; the
others keep their objects (``fixes.apply_fixes``) and their code (``Tree.top_level_code``),
so the fixed text is theirs and the rebuilt statements' code, spliced. Parsing the
whole text again (the check every fix passes, whose tree the next lint reads) is
then parsing the rebuilt statements, each alone: between two top-level statements
the tokenizer stands at column 0, outside any bracket, with no indentation, so a
statement's tokens are those it has in the file. What is not local is handled or
refused (None: parse the whole text):

- the empty and comment lines before a statement: a statement parsed alone gets
  them as the module's header, in the file they are its ``leading_lines``; and
  lines indented below a compound statement belong to its last block's footer in
  the file, wherever they stand (refused when a rebuilt statement meets one);
- the module's configuration, read from the whole text (its first newline, its
  first indented block): a statement parsed alone must read the same, and the
  first indented block of the file must keep its indentation;
- the module's header and footer, and the bounds ``parsing.parse_module`` checks on
  the whole text (size, a byte order mark, a final lone carriage return).

``tests/test_reparse.py`` compares the result with parsing the whole text
(``deep_equals``) on every fixture and case, each round of the fix loop.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from gradlint import parsing
from gradlint.traversal import children

_NEWLINE = re.compile(r"\r\n?|\n")  # how LibCST finds a module's default newline


def spliced_parse(
    old: cst.Module,
    new: cst.Module,
    text: str,
    old_code: Optional[Dict[int, Tuple[cst.CSTNode, str]]],
    new_code: Optional[Dict[int, Tuple[cst.CSTNode, str]]],
) -> Optional[cst.Module]:
    """``parsing.parse_module(text)``, for ``text`` the code of ``new`` (the fixed
    module whose unchanged top-level nodes are those of ``old``); None where it
    cannot be told this way or ``text`` does not parse (then parse it whole).

    ``old_code``: the code of ``old``'s top-level nodes (``Tree.top_level_code``);
    ``new_code``: that of ``new``'s, as ``import_changes.module_code`` spliced
    ``text`` (``known_code``'s table after the fixes)."""
    if old_code is None or new_code is None or not new.body or not new.has_trailing_newline:
        return None
    if (new.default_indent, new.default_newline) != (old.default_indent, old.default_newline):
        return None
    if len(text) > parsing.MAX_SOURCE_CHARS or text.startswith("\ufeff") or text.endswith("\r"):
        return None
    first_newline = _NEWLINE.search(text)
    if first_newline is None or first_newline.group() != old.default_newline:
        return None
    if not _same_nodes(new.header, old.header) or not _same_nodes(new.footer, old.footer):
        return None
    body: List[cst.BaseStatement] = []
    rebuilt: List[bool] = []
    header = new.header
    for i, stmt in enumerate(new.body):
        known = old_code.get(id(stmt))
        if known is not None and known[0] is stmt:
            body.append(stmt)
            rebuilt.append(False)
            continue
        code = new_code.get(id(stmt))
        if code is None or code[0] is not stmt:
            return None
        try:
            alone = parsing.parse_module(code[1])
        except (parsing.NotParsed, cst.ParserSyntaxError, RecursionError, MemoryError, UnicodeError):
            return None
        if len(alone.body) != 1 or alone.footer or alone.default_newline != old.default_newline:
            return None
        parsed = alone.body[0]
        # A simple statement line holds no indented block, whose ``indent`` the default reads.
        if alone.default_indent != old.default_indent and type(parsed) is not cst.SimpleStatementLine:
            return None
        if i == 0:
            if new.header:
                return None
            header = alone.header  # the lines before the first statement are the module's
        elif alone.header:
            parsed = parsed.with_changes(leading_lines=(*alone.header, *parsed.leading_lines))
        body.append(parsed)
        rebuilt.append(True)
    if rebuilt[-1] and new.footer:
        return None
    for i in range(1, len(body)):
        if (rebuilt[i] or rebuilt[i - 1]) and not isinstance(body[i - 1], cst.SimpleStatementLine):
            # A compound statement's last block takes the indented lines after it.
            if any(line.whitespace.value for line in getattr(body[i], "leading_lines")):
                return None
    if not _first_indent_kept(body, rebuilt):
        return None
    return new.with_changes(header=header, body=body)


def _same_nodes(a: Sequence[cst.CSTNode], b: Sequence[cst.CSTNode]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _first_indent_kept(body: List[cst.BaseStatement], rebuilt: List[bool]) -> bool:
    """Whether the first indented block of the file still has the module's default
    indentation, which LibCST reads from it: a rebuilt statement's does (its parse
    alone read the same default), an unchanged statement's where its ``indent`` is
    None (the default's). A file with no indented block keeps LibCST's default only
    if it had it."""
    for stmt, new in zip(body, rebuilt):
        if type(stmt) is cst.SimpleStatementLine:
            continue
        block = _first_block(stmt)
        if block is not None:
            return new or block.indent is None
    return False


def _first_block(stmt: cst.CSTNode) -> Optional[cst.IndentedBlock]:
    stack = [stmt]
    while stack:
        node = stack.pop()
        if type(node) is cst.IndentedBlock:
            return node
        stack.extend(reversed(children(node)))
    return None
