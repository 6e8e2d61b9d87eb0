"""Legacy code that no parser accepts any more, seen on the token stream.

``x.cuda(async=True)`` was PyTorch 0.3's way to ask for an asynchronous copy;
0.4 renamed the argument to ``non_blocking`` and Python 3.7 made ``async`` a
keyword, so such a file is a syntax error for CPython and LibCST alike.
Python's ``tokenize`` still yields ``async`` as a plain name, so the rename can
happen before parsing, byte for byte, where ``async`` is a keyword argument of
one of the methods that took it.

This module also names the problem in a file that does not parse: Python 2
syntax (``print x``), or ``async`` used as a name, so that ``gradlint
migrate`` can say why it left the file alone.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from gradlint import parsing

# The tensor/storage methods that took ``async=`` up to PyTorch 0.3 (and, with a
# deprecation warning, 0.4.0) and take ``non_blocking=`` since.
ASYNC_METHODS = frozenset({"cuda", "to", "type", "copy_"})
NEW_NAME = "non_blocking"

_LINE_END = re.compile(r"\r\n|\r|\n")
_ASYNC_CALL = re.compile(r"\.\s*(?P<method>" + "|".join(sorted(ASYNC_METHODS)) + r")\s*\((?:[^()]*,)?\s*(?P<kw>async)\s*=")
_SKIP = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})


@dataclass(frozen=True)
class AsyncArgument:
    """An ``async=`` keyword argument: 1-based line, 0-based column (characters)."""

    line: int
    column: int
    method: str


def _tokens(source: str) -> List[tokenize.TokenInfo]:
    out: List[tokenize.TokenInfo] = []
    try:
        # newline=None: a lone "\r" (old Mac files) ends a line too; rows and columns stay the source's.
        for tok in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
            if tok.type not in _SKIP:
                out.append(tok)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a file that does not tokenize does not parse either; what was read still counts
    return out


def async_arguments(source: str) -> List[AsyncArgument]:
    """Every ``async=`` keyword argument of a ``.cuda()``/``.to()``/``.type()``/``.copy_()`` call."""
    if "async" not in source:
        return []
    if len(source) > parsing.MAX_SOURCE_CHARS:
        # Too large to be parsed, so to be migrated: whether there is one is all that
        # matters (the file is then reported as too large), and a regex says it at once.
        m = _ASYNC_CALL.search(source)
        if m is None:
            return []
        line = len(_LINE_END.findall(source, 0, m.start("kw"))) + 1
        column = m.start("kw") - max(source.rfind("\n", 0, m.start("kw")), source.rfind("\r", 0, m.start("kw"))) - 1
        return [AsyncArgument(line, column, m.group("method"))]
    toks = _tokens(source)
    found: List[AsyncArgument] = []
    forwarders = _forwarders(toks)
    # One entry per open bracket: the method name when it opens a call of ``.name(``, the
    # function's when it calls one of the file's functions that hand ``**kwargs`` on to
    # such a method (``to_gpu(x, async=True)``), else None.
    stack: List[Optional[str]] = []
    for i, tok in enumerate(toks):
        if tok.type == tokenize.OP:
            if tok.string in "([{":
                stack.append((_called_method(toks, i) or _called_forwarder(toks, i, forwarders)) if tok.string == "(" else None)
            elif tok.string in ")]}" and stack:
                stack.pop()
            continue
        if not (tok.type == tokenize.NAME and tok.string == "async" and stack and (stack[-1] in ASYNC_METHODS or stack[-1] in forwarders)):
            continue
        before = toks[i - 1].string if i > 0 else ""
        after = toks[i + 1] if i + 1 < len(toks) else None
        if before in ("(", ",") and after is not None and after.type == tokenize.OP and after.string == "=":
            found.append(AsyncArgument(tok.start[0], tok.start[1], stack[-1]))  # type: ignore[arg-type]
    return found


def _forwarders(toks: Sequence[tokenize.TokenInfo]) -> frozenset:
    """Names of the module-level functions (``def f(x, *args, **kwargs):``, at column 0,
    defined once) whose body passes ``**kwargs`` on to a ``.cuda()``/``.to()``/``.type()``/
    ``.copy_()`` call: an ``async=`` given to them ends up there."""
    defs: dict = {}
    for i, tok in enumerate(toks):
        if not (tok.type == tokenize.NAME and tok.string == "def" and i + 2 < len(toks)):
            continue
        name = toks[i + 1].string
        if tok.start[1] != 0 or name in defs:
            defs[name] = None  # nested, a method, or defined twice: not known
            continue
        defs[name] = _forwards_kwargs(toks, i + 2)
    return frozenset(n for n, ok in defs.items() if ok)


def _forwards_kwargs(toks: Sequence[tokenize.TokenInfo], paren: int) -> bool:
    if toks[paren].string != "(":
        return False
    depth, i, kwargs = 0, paren, None
    while i < len(toks):
        t = toks[i]
        if t.string in "([{":
            depth += 1
        elif t.string in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and t.string == "**" and i + 1 < len(toks) and toks[i + 1].type == tokenize.NAME:
            kwargs = toks[i + 1].string
        i += 1
    if kwargs is None:
        return False
    # The body: up to the next statement at column 0.
    body_line = toks[i].start[0]
    for j in range(i + 1, len(toks)):
        t = toks[j]
        if t.start[0] > body_line and t.start[1] == 0 and t.type != tokenize.ENDMARKER:
            return False
        if t.string == "**" and j + 1 < len(toks) and toks[j + 1].string == kwargs:
            return _enclosing_method(toks, j) in ASYNC_METHODS
    return False


def _enclosing_method(toks: Sequence[tokenize.TokenInfo], at: int) -> Optional[str]:
    """The method whose call's parentheses directly hold the token at ``at``."""
    depth = 0
    for k in range(at - 1, -1, -1):
        s = toks[k].string
        if s in ")]}":
            depth += 1
        elif s in "([{":
            if depth == 0:
                return _called_method(toks, k) if s == "(" else None
            depth -= 1
    return None


def _called_forwarder(toks: Sequence[tokenize.TokenInfo], paren: int, forwarders: frozenset) -> Optional[str]:
    """``name`` when the ``(`` at ``paren`` calls ``name(`` (not ``x.name(``), one of ``forwarders``."""
    if paren < 1 or not forwarders:
        return None
    name = toks[paren - 1]
    if name.type != tokenize.NAME or name.string not in forwarders or (paren >= 2 and toks[paren - 2].string in (".", "def")):
        return None
    return name.string


def _called_method(toks: Sequence[tokenize.TokenInfo], paren: int) -> Optional[str]:
    """``name`` when the ``(`` at ``paren`` opens a method call ``<expr>.name(``."""
    if paren < 2:
        return None
    name, dot = toks[paren - 1], toks[paren - 2]
    if name.type != tokenize.NAME or keyword.iskeyword(name.string) or dot.string != ".":
        return None
    return name.string


def rename_async_arguments(source: str) -> Tuple[str, List[AsyncArgument]]:
    """``source`` with every ``async=`` argument found by :func:`async_arguments` renamed
    to ``non_blocking=``; all other characters are kept as they are."""
    found = async_arguments(source)
    if not found:
        return source, []
    starts = [0] + [m.end() for m in _LINE_END.finditer(source)]
    out: List[str] = []
    pos = 0
    for arg in found:
        offset = starts[arg.line - 1] + arg.column
        out.append(source[pos:offset])
        out.append(NEW_NAME)
        pos = offset + len("async")
    out.append(source[pos:])
    return "".join(out), found


def repair_hint(source: str, line: int) -> str:
    """What to add to a syntax error at ``line`` that ``gradlint migrate`` repairs, or ``""``."""
    if any(arg.line == line for arg in async_arguments(source)):
        return (
            f" (`async=` is PyTorch 0.3's name for `{NEW_NAME}=`, and a keyword since Python 3.7:"
            " `gradlint migrate` renames it)"
        )
    return ""


# CPython's messages for Python 2 constructs, and lines that show one where the
# message is only "invalid syntax".
_PY2_MESSAGES = (
    ("Missing parentheses in call to 'print'", "`print` statement"),
    ("Missing parentheses in call to 'exec'", "`exec` statement"),
    ("multiple exception types must be parenthesized", "`except E, name:`"),
    ("leading zeros in decimal integer literals", "octal literal without `0o`"),
    ("inconsistent use of tabs and spaces in indentation", "tabs and spaces mixed in indentation"),
)
_PY2_LINES = (
    (re.compile(r"^\s*print\s*(?:>>|[\"'\w])"), "`print` statement"),
    (re.compile(r"^\s*exec\s+[\"'\w]"), "`exec` statement"),
    (re.compile(r"^\s*except\s+[^:#]+,\s*\w+\s*:"), "`except E, name:`"),
    (re.compile(r"^\s*raise\s+[\w.]+\s*,"), "`raise E, message`"),
    (re.compile(r"<>"), "`<>` operator"),
    (re.compile(r"`"), "backquote repr"),
    (re.compile(r"\b\d+[lL]\b"), "long integer literal"),
    (re.compile(r"\bur[\"']", re.IGNORECASE), "`ur''` string"),
)


def describe_syntax_error(source: str, line: int, column: int, message: str) -> str:
    """One line saying why ``source`` does not parse, naming Python 2 syntax and
    ``async`` used as a name, which are what legacy PyTorch code trips on."""
    lines = _LINE_END.split(source)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    where = f"line {line}"
    for fragment, construct in _PY2_MESSAGES:
        if message.startswith(fragment):
            return f"Python 2 syntax ({construct}) on {where}: {message}"
    if re.match(r"(async|await)\b", text[column:]):
        word = text[column:column + 5]
        return (
            f"`{word}` is a keyword since Python 3.7 and cannot be a name or argument here ({where}); "
            "rename it by hand"
        )
    if message == "invalid syntax" or message.startswith("invalid"):
        for pattern, construct in _PY2_LINES:
            if pattern.search(text):
                return f"Python 2 syntax ({construct}) on {where}: {message}"
    return f"syntax error on {where}: {message}"
