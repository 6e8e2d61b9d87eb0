"""LibCST's parser, bounded so that no input can crash gradlint or lose a byte.

LibCST parses with a native recursive-descent parser, which has no guard of
its own. Measured with LibCST 1.9 on Linux (``tests/test_reliability.py``
keeps the cases, ``docs/reliability.md`` the figures):

- nesting overflows the stack of the thread that parses, and the process dies
  of SIGSEGV (2,000 nested brackets on an 8 MiB main-thread stack): no
  exception to catch, no report, the other files unchecked. A bracket level
  takes about 7 KiB of that stack, any other level (an operator of a chain,
  ``not``, ``lambda``, a conditional expression...) at most 3.4 KiB;
- memory grows with the square of the nesting: 1,000 nested lists or calls
  take 2 GB, 3,000 took 17 GB; 2,400 chained ``**`` take 700 MB;
- a megabyte of source takes about 5 s and 650 MB to parse.

So before parsing, :func:`nesting` bounds from above how deep the parser can
recurse, in one pass over the tokens: one unit per open bracket and per
chained operator, keyword or string. Tokenizing costs about a tenth of the
parse, so :func:`quick_bound` first bounds the same units from above with a
few regular expressions over logical lines (a third of the cost); only a
source it cannot place within ``DIRECT_NESTING`` is tokenized. LibCST is not
given a source

- longer than ``MAX_SOURCE_CHARS`` (the largest real file seen, PyTorch's
  ``common_methods_invocations.py``, is 1.4 MB),
- with brackets nested deeper than ``MAX_BRACKETS``: CPython's own limit
  ("too many nested parentheses"), so no such file is Python,
- or deeper than ``MAX_NESTING`` units (at most about 600 MB and a second),

each of which is reported as one unparsable-file line (:class:`TooComplex`). Real code
stays far below: of the 7,290 files of torch, sympy, LibCST and the rest of
gradlint's dev environment, all but nine are under 200 units, and the deepest
but one (generated sympy polynomials) at 1,616. A source past
``DIRECT_NESTING`` units is parsed on a thread of its own, whose stack
(``PARSER_STACK``: address space, used only as deep as the parse goes) holds
``MAX_NESTING`` units ten times over, whatever the caller's thread (Windows
and macOS give threads far less than 8 MiB).

Gradlint walks the tree without recursing, but some of its questions, and
LibCST's code generation (which renders the places of findings), recurse: a
tree deeper than Python's recursion limit allows there (about 300 chained
operators) raises RecursionError, which the runner reports as an unparsable file ("too
deeply nested to analyse").

:func:`parse_module` also keeps LibCST from writing a module back without a
byte of its source: a final lone ``\\r`` (old Mac line endings), or a leading
U+FEFF.
"""

from __future__ import annotations

import ast
import functools
import io
import os
import re
import threading
import tokenize
import warnings
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import libcst as cst

from gradlint.prefilter import MAX_SOURCE_CHARS  # re-exported: the prefilter applies the same limit

# Python source lines end with \r\n, \r or \n only; str.splitlines() would also
# split at form feeds and other separators that LibCST counts as part of a line.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> List[str]:
    """The lines of ``text`` with their line endings, as Python's tokenizer counts lines."""
    return _LINE.findall(text)


MAX_BRACKETS = 200
MAX_NESTING = 2000
DIRECT_NESTING = 200
PARSER_STACK = 64 << 20

# Keywords that chain expressions as operators do (``a and b and ...``, ``x if c else ...``).
_CHAINING = frozenset({"and", "or", "not", "if", "else", "lambda", "await", "in", "is", "for", "yield", "from", "async"})
_OPEN, _CLOSE = "([{", ")]}"


def reindented(source: str) -> Optional[Tuple[str, Callable[[Tuple[int, int]], Tuple[int, int]]]]:
    """``source`` with the tabs of every line's leading blanks expanded as CPython
    reads indentation (to the next multiple of eight), and a map of a (line,
    column) of that text back to ``source``; None without such a tab. CPython
    accepts a file that indents with tabs here and spaces there as long as both
    readings of a tab (eight columns, one) agree; LibCST refuses some of them
    (old training scripts edited in several editors)."""
    lines = split_lines(source)
    shifts: Dict[int, Tuple[int, int]] = {}  # line -> (expanded width, written width)
    out: List[str] = []
    for number, line in enumerate(lines, 1):
        lead = _LEADING_BLANKS.match(line).group(0)  # type: ignore[union-attr]
        if "\t" in lead:
            wide = lead.expandtabs(8)
            shifts[number] = (len(wide), len(lead))
            line = wide + line[len(lead) :]
        out.append(line)
    if not shifts:
        return None

    def position(at: Tuple[int, int]) -> Tuple[int, int]:
        line, column = at
        shift = shifts.get(line)
        if shift is None:
            return at
        wide, written = shift
        return line, column - wide + written if column >= wide else min(column, written)

    return "".join(out), position


_LEADING_BLANKS = re.compile(r"[ \t]*")


class NotParsed(Exception):
    """A source that is not given to LibCST: 1-based line, 0-based column, a one-line message."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message


class TooComplex(NotParsed):
    """Valid or not, the source is beyond what gradlint parses (too large, too deeply nested)."""


class Nesting(NamedTuple):
    units: int
    brackets: int  # the deepest bracket nesting
    line: int  # where the deepest point (in units) is: 1-based line, 0-based column
    column: int
    # Whether the whole source tokenized; when not, the figures hold for the part before the error.
    complete: bool


def nesting(source: str) -> Nesting:
    """An upper bound on how deep LibCST's parser recurses for ``source``.

    Units: 1 per open bracket, and 1 per operator, chaining keyword or string
    literal since the last comma at each open bracket level; 1 per indentation
    level. Brackets inside an f-string (one token before Python 3.12) count as
    brackets.
    """
    indent = 0
    chains: List[int] = [0]  # per open bracket level: operators since its last comma
    depth = 1  # sum(1 + c for c in chains)
    units, line, column, brackets = 0, 1, 0, 0
    try:
        # newline=None: "\r" and "\r\n" end lines as "\n" does, and keep rows and columns.
        for tok in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
            kind, text = tok.type, tok.string
            inner = 0  # brackets nested inside this token (an f-string's expressions)
            if kind == tokenize.OP:
                if text in _OPEN:
                    chains.append(0)
                    depth += 1
                    brackets = max(brackets, len(chains) - 1)
                elif text in _CLOSE:
                    if len(chains) > 1:
                        depth -= 1 + chains.pop()
                    continue
                elif text in ",;":
                    depth -= chains[-1]
                    chains[-1] = 0
                    continue
                else:
                    chains[-1] += 1
                    depth += 1
            elif kind == tokenize.STRING or (kind == tokenize.NAME and text in _CHAINING):
                chains[-1] += 1
                depth += 1
                if kind == tokenize.STRING and "{" in text and "f" in text[: text.find(text[-1])].lower():
                    inner = _bracket_depth(text)
                    brackets = max(brackets, len(chains) - 1 + inner)
            elif kind == tokenize.NEWLINE:
                chains, depth = [0], 1
                continue
            elif kind == tokenize.INDENT:
                indent += 1
            elif kind == tokenize.DEDENT:
                indent -= 1
                continue
            else:
                continue
            if indent + depth + inner > units:
                units, line, column = indent + depth + inner, tok.start[0], tok.start[1]
    except (tokenize.TokenError, SyntaxError):
        return Nesting(units, brackets, line, column, False)
    return Nesting(units, brackets, line, column, True)


# Strings and comments, so that what they hold counts as one unit and never as
# a bracket: a comment, or a string literal with any prefix (an unterminated one
# does not match, and its text then counts as code, which only raises the bound).
_STRING_OR_COMMENT = re.compile(
    r"#[^\r\n]*"
    r"|[rRbBuUfF]{0,2}(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^\"\\]|\\.|\"(?!\"\"))*\"\"\""
    r"|'(?:[^'\\\r\n]|\\.)*'|\"(?:[^\"\\\r\n]|\\.)*\")",
    re.S,
)
# Every operator token has one of these characters (all but "," and ";", which
# end a chain, and closing brackets); a blanked string is one "'" per unit.
_UNIT_CHARS = re.compile(r"[(\[{.:=+\-*/%@&|^~<>!']")
# Not after a letter (a name goes on), but after a digit: ``1if x else 2`` is Python.
_CHAINING_WORDS = re.compile(r"(?<![^\W\d])(?:" + "|".join(sorted(_CHAINING)) + r")\b")


def _blank(match: "re.Match[str]") -> str:
    text = match.group(0)
    if text[0] == "#":
        return ""
    # An f-string's expressions may nest brackets: one unit for each, as nesting() counts.
    return "'" * (1 + text.count("(") + text.count("[") + text.count("{"))


def quick_bound(source: str) -> Optional[int]:
    """An upper bound on :func:`nesting`'s units, without tokenizing; None when the
    brackets do not balance by the end (the exact count then decides).

    Each logical line counts its indentation in characters (at least one per
    level), one unit for itself, and one per unit character and chaining word in
    all of it, nothing ever subtracted: at least what nesting() counts at its
    deepest token.
    """
    text = _STRING_OR_COMMENT.sub(_blank, source)
    best = balance = indent = 0
    logical: List[str] = []
    # Only the line ends tokenize knows: str.splitlines() also splits at form feeds and the like.
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not logical:
            lead = line[: len(line) - len(line.lstrip())]
            # Columns, tabs to 8 as tokenize counts them: each indentation level takes at least one.
            indent = len(lead.expandtabs(8)) if "\t" in lead else len(lead)
        logical.append(line)
        balance += line.count("(") + line.count("[") + line.count("{") - line.count(")") - line.count("]") - line.count("}")
        if balance > 0 or line.rstrip().endswith("\\"):
            continue
        joined = " ".join(logical)
        best = max(best, indent + 1 + len(_UNIT_CHARS.findall(joined)) + len(_CHAINING_WORDS.findall(joined)))
        logical, balance = [], 0
    return None if logical else best


def _bracket_depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
    return deepest


def check(source: str) -> int:
    """How deep LibCST may recurse on ``source``, in units, bounded from above;
    NotParsed when it must not be given to LibCST at all.

    A source :func:`quick_bound` places within ``DIRECT_NESTING`` units is not
    tokenized: whether it is Python is then LibCST's to say, and when LibCST
    refuses it, :func:`parse_module` asks the tokens for the error users
    know.
    """
    if len(source) > MAX_SOURCE_CHARS:
        raise TooComplex(
            1, 0, f"file too large to analyse ({len(source) / (1 << 20):.1f} MiB; gradlint parses files up to {MAX_SOURCE_CHARS >> 20} MiB)"
        )
    quick = quick_bound(source)
    if quick is not None and quick <= DIRECT_NESTING:
        return quick
    return _check_tokens(source)


def _check_tokens(source: str) -> int:
    """:func:`check`, from the tokens, for a source of no more than ``MAX_SOURCE_CHARS``.

    A source that does not tokenize is given to LibCST only when CPython compiles
    it (the two tokenizers disagree, rarely): CPython's own limits (200 nested
    brackets; RecursionError past a few thousand chained operators) then bound
    the depth. Otherwise LibCST would fail too, at best, and CPython's message
    is the one users know.
    """
    found = nesting(source)
    if found.brackets > MAX_BRACKETS:
        raise TooComplex(found.line, found.column, f"brackets nested {found.brackets} deep (Python allows {MAX_BRACKETS})")
    if found.units > MAX_NESTING:
        raise TooComplex(
            found.line, found.column, f"too deeply nested to analyse (about {found.units} levels; the limit is {MAX_NESTING})"
        )
    if not found.complete:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarnings are not ours to print
                compile(source, "<source>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as err:
            raise NotParsed(err.lineno or 1, max((err.offset or 1) - 1, 0), err.msg) from None
        except (RecursionError, MemoryError):
            raise TooComplex(found.line, found.column, "too deeply nested to analyse") from None
        except ValueError as err:  # NUL characters, lone surrogates
            raise NotParsed(1, 0, str(err)) from None
        return MAX_NESTING
    return found.units


def parse_module(source: str) -> cst.Module:
    """``cst.parse_module(source)`` within the bounds above: NotParsed (or its
    subclass TooComplex) past them, ``cst.ParserSyntaxError`` as LibCST raises it."""
    units = check(source)
    if source.startswith("\ufeff"):
        # LibCST would drop it when writing the module back. (A file's own byte order
        # mark is not in its text: this is a second one, which Python refuses too.)
        raise NotParsed(1, 0, "invalid non-printable character U+FEFF (a byte order mark in the text)")
    try:
        module = _parse(source) if units <= DIRECT_NESTING else _parse_on_big_stack(source, units)
    except cst.ParserSyntaxError:
        # Not tokenized yet (see check): a source the tokenizer or CPython refuses
        # gets their message, as it would have without the quick bound.
        _check_tokens(source)
        raise
    except UnicodeEncodeError as exc:
        # LibCST hands the text to its native parser as UTF-8; a lone surrogate (which
        # a notebook's JSON or an editor can hold) cannot be, and is not Python anyway.
        lines = split_lines(source[: exc.start + 1])
        line, column = len(lines), len(lines[-1]) - 1
        raise NotParsed(line, column, f"invalid character {source[exc.start]!r} (a lone surrogate, not Unicode text)") from None
    if source.endswith("\r") and not module.has_trailing_newline:
        # LibCST takes a final lone "\r" for no newline at all, and would write the
        # module back without it; marked as ending with a newline, it writes it.
        module = module.with_changes(has_trailing_newline=True)
    return module


# LibCST checks every node it builds (CSTNode.__post_init__ calls _validate), the
# nodes its parser builds included, which its grammar has already checked: a
# seventh of the parse. (LibCST's own comment there says as much.) While gradlint
# parses, node building skips that check. It is done only where __post_init__ is
# the one this was measured on (a call of _validate and nothing else); a node
# another thread builds meanwhile goes unchecked too, which can only let a fix
# through to the final re-parse that every fix passes before it is written.
_VALIDATING = cst.CSTNode.__dict__.get("__post_init__")
_SKIP_VALIDATION = _VALIDATING is not None and _VALIDATING.__code__.co_names == ("_validate",)
_validation_lock = threading.Lock()


def _unchecked(self: cst.CSTNode) -> None:
    pass


def _parser() -> Callable[[str], cst.Module]:
    """``cst.parse_module`` for a ``str``: LibCST's native parser, called as
    ``cst.parse_module`` calls it.

    For a ``str`` (always UTF-8 to LibCST) ``cst.parse_module`` calls
    ``libcst.native.parse_module(source, encoding="utf-8")`` and nothing else; its
    module imports the pure-Python tokenizer and configuration detection for
    ``bytes`` and the other entry points, a twentieth of a start-up that must
    parse. Where LibCST has no native parser, or is asked for its pure-Python one
    (``LIBCST_PARSER_TYPE=pure``, older LibCSTs), ``cst.parse_module`` itself.
    """
    global _parse_str
    if _parse_str is None:
        native = None
        if os.environ.get("LIBCST_PARSER_TYPE", "native") == "native":
            try:
                from libcst import native  # type: ignore[attr-defined,no-redef]
            except ImportError:
                native = None
        parse_native = getattr(native, "parse_module", None)
        if parse_native is None:
            _parse_str = cst.parse_module
        else:
            _parse_str = functools.partial(parse_native, encoding="utf-8")
    return _parse_str


_parse_str: Optional[Callable[[str], cst.Module]] = None


def _parse(source: str) -> cst.Module:
    parse = _parser()
    if not _SKIP_VALIDATION:
        return parse(source)
    with _validation_lock:
        cst.CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
        try:
            return parse(source)
        finally:
            cst.CSTNode.__post_init__ = _VALIDATING  # type: ignore[method-assign,assignment]


_stack_lock = threading.Lock()


def _parse_on_big_stack(source: str, units: int) -> cst.Module:
    result: List[cst.Module] = []
    error: List[BaseException] = []

    def run() -> None:
        try:
            result.append(_parse(source))
        except BaseException as exc:  # re-raised in the caller's thread
            error.append(exc)

    thread: Optional[threading.Thread] = None
    with _stack_lock:  # the stack size applies to every thread started while it is set
        previous = threading.stack_size()
        try:
            threading.stack_size(PARSER_STACK)
            thread = threading.Thread(target=run, name="gradlint-parse", daemon=True)
            thread.start()
        except (RuntimeError, ValueError, MemoryError):
            thread = None  # no thread (or no such stack) to be had here
        finally:
            threading.stack_size(previous)
    if thread is None:
        raise TooComplex(1, 0, f"too deeply nested to analyse (about {units} levels, and no thread with a large stack to parse it on)")
    thread.join()
    if error:
        raise error[0]
    return result[0]
