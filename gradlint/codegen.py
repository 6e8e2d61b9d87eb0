"""Small builders for the code fixes insert, shared by rules and ``migrate``.

Replacement nodes are built by parsing short templates where that is
possible: hand-built nodes easily come out with odd whitespace.
"""

from __future__ import annotations

import ast
import os
from typing import Callable, Dict, Sequence, cast

import libcst as cst

_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Ellipsis,
)


def atomic(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr``, parenthesised unless it already binds tighter than attribute access
    and can stand anywhere an expression can (see :func:`breaks_lines`)."""
    if expr.lpar or isinstance(expr, _ATOMS) and not breaks_lines(expr):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def breaks_lines(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` spans lines outside brackets of its own (``a +\\n b`` or
    ``x.f()\\n .g()`` as an argument: the call's parentheses held it together).
    Lifted out of that call it would end its statement at the line break, so a
    rewrite that lifts it needs parentheses around it."""
    code = _EMPTY.code_for_node(expr)
    if "\n" not in code and "\r" not in code:
        return False
    try:
        # Does it parse on its own, as one expression (as it would inside brackets)?
        compile(code, "<expression>", "eval", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


_EMPTY = cst.Module(body=[])


def keep_parens(original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """``new`` wearing the parentheses ``original`` had (``(Variable(x))`` -> ``(x)``)."""
    if original.lpar and not new.lpar:
        return new.with_changes(lpar=original.lpar, rpar=original.rpar)
    return new


def method_call(receiver: cst.BaseExpression, method: str, args: Sequence[cst.Arg] = ()) -> cst.Call:
    """``receiver.method(args)``."""
    return cst.Call(func=cst.Attribute(value=atomic(receiver), attr=cst.Name(method)), args=list(args))


def expr(code: str) -> cst.BaseExpression:
    return cast(cst.BaseExpression, _parser("parse_expression")(code))


def statement(code: str) -> cst.BaseStatement:
    """``cst.parse_statement(code)``, whatever the configuration: for a ``str`` LibCST
    uses it for nothing else than to decode ``bytes``."""
    return cast(cst.BaseStatement, _parser("parse_statement")(code))


def _parser(name: str) -> Callable[[str], cst.CSTNode]:
    """``cst.<name>`` for a ``str``: LibCST's native parser, which ``cst.<name>``
    calls and nothing else, without the module that imports the pure-Python
    tokenizer and configuration detection for ``bytes`` (for a GL101 fix of a
    small file, a twentieth of the check's CPU, docs/benchmarks.md); LibCST's own
    where it has no native parser or is asked for its pure-Python one
    (``LIBCST_PARSER_TYPE``), as in ``gradlint.parsing``."""
    parse = _PARSERS.get(name)
    if parse is None:
        native = None
        if os.environ.get("LIBCST_PARSER_TYPE", "native") == "native":
            try:
                from libcst import native  # type: ignore[attr-defined,no-redef]
            except ImportError:
                native = None
        parse = _PARSERS[name] = getattr(native, name, None) or getattr(cst, name)
    return parse


_PARSERS: Dict[str, Callable[[str], cst.CSTNode]] = {}


def add_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """``f(a)`` -> ``f(a, keyword=value)``, keeping the call's own layout."""
    new_arg = cst.Arg(
        value=value,
        keyword=cst.Name(keyword),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new_arg])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        # A trailing comma (often a one-argument-per-line call): keep the style.
        new_arg = new_arg.with_changes(comma=last.comma)
        args.append(new_arg)
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(new_arg)
    return call.with_changes(args=args)


def without_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    """``call`` with ``arg`` removed, fixing up the comma before it."""
    args = [a for a in call.args if a is not arg]
    if args and call.args[-1] is arg:
        args[-1] = args[-1].with_changes(comma=arg.comma)
    return call.with_changes(args=args)


def add_decorator(func: cst.FunctionDef, decorator: str) -> cst.FunctionDef:
    """Add ``@decorator`` as the innermost decorator (closest to ``def``)."""
    dec = cst.Decorator(decorator=expr(decorator))
    return func.with_changes(decorators=[*func.decorators, dec])


class _BlankLinesUnindented(cst.CSTTransformer):
    """Blank lines at module level parse with ``indent=True`` (the indent there is
    empty); moved into a block they would come out as lines of spaces."""

    def leave_EmptyLine(self, original_node: cst.EmptyLine, updated_node: cst.EmptyLine) -> cst.EmptyLine:
        if updated_node.indent and updated_node.comment is None and not updated_node.whitespace.value:
            return updated_node.with_changes(indent=False)
        return updated_node


def wrap_in_with(statements: Sequence[cst.BaseStatement], item: str) -> cst.With:
    """``with item:`` around ``statements``; comments above the first move above the ``with``."""
    first = statements[0]
    leading = getattr(first, "leading_lines", ())
    body = [first.with_changes(leading_lines=()) if leading else first, *statements[1:]]
    # The transformer only edits blank lines: each statement comes back as a statement.
    body = [cast(cst.BaseStatement, stmt.visit(_BlankLinesUnindented())) for stmt in body]
    return cst.With(
        items=[cst.WithItem(item=expr(item))],
        body=cst.IndentedBlock(body=body),
        leading_lines=leading,
    )
