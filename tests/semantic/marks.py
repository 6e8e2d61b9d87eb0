"""Facts marked inline in small sources, for the semantic model's tests.

A fact is a comment at the end of the line it is about: ``# <kind> <subject>:
<expected>`` (``# reaches y: 1 3``, ``# value loss: tensor graph=yes
shape=scalar``) or ``# <kind>: <expected>`` for the statement on that line
(``# torch_ref: torch``, ``# mode: off``). Several facts on one line are
separated by ``;``. The subject is the last node on the line whose source is
the subject's text (in a pre-order walk: for nested calls, the innermost).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

import libcst as cst

from gradlint.rule import FileContext
from gradlint.semantic.tree import walk

_FACT = re.compile(r"(?P<kind>[a-z_]+)(?: (?P<subject>[^:]+?))?: (?P<expected>[^;]*)")


@dataclass
class Fact:
    line: int
    kind: str
    subject: Optional[str]
    expected: str


def context(code: str) -> FileContext:
    source = textwrap.dedent(code)
    return FileContext("x.py", source, cst.parse_module(source))


def facts(ctx: FileContext, kind: str) -> List[Fact]:
    found = []
    for number, line in enumerate(ctx.source.splitlines(), 1):
        if "#" not in line:
            continue
        comment = line[line.rindex("#") + 1 :].strip()
        for part in comment.split(";"):
            m = _FACT.fullmatch(part.strip())
            if m and m.group("kind") == kind:
                found.append(Fact(number, kind, m.group("subject"), m.group("expected").strip()))
    assert found, f"no {kind} fact marked"
    return found


def node_on(ctx: FileContext, line: int, text: str, cls: type = cst.CSTNode) -> cst.CSTNode:
    found = [
        n
        for n in walk(ctx.module, into_functions=True)
        if isinstance(n, cls) and ctx.tree.line(n) == line and ctx.code_for(n).strip() == text
    ]
    assert found, f"no {text!r} on line {line}"
    return found[-1]


def read_on(ctx: FileContext, line: int, text: str) -> cst.Name:
    """The last read of the variable ``text`` on ``line``."""
    scopes = ctx.semantic.scopes
    found = [
        n
        for n in walk(ctx.module, into_functions=True)
        if isinstance(n, cst.Name) and n.value == text and ctx.tree.line(n) == line and scopes.is_read(n)
    ]
    assert found, f"no read of {text!r} on line {line}"
    return found[-1]


def statement_on(ctx: FileContext, line: int) -> cst.CSTNode:
    """The innermost statement that starts on ``line`` (a ``def`` for its header line)."""
    found = [
        n
        for n in walk(ctx.module, into_functions=True)
        if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and _header_line(ctx, n) == line
    ]
    assert found, f"no statement on line {line}"
    return found[-1]


def _header_line(ctx: FileContext, node: cst.CSTNode) -> int:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return ctx.tree.line(node.name)
    return ctx.tree.line(node)


def each(code: str, kind: str) -> Iterator[Tuple[FileContext, Fact]]:
    ctx = context(code)
    for fact in facts(ctx, kind):
        yield ctx, fact
