"""The parser's bounds: the quick bound never says less than the tokens do, and a
source it lets through unchecked gets the same answer as one checked by tokens.

The hostile inputs themselves (deep nesting, broken sources) are in
test_hostile.py.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from gradlint import parsing

ROOT = Path(__file__).resolve().parent.parent

# Each is a way the quick bound could count less than the tokens if it read the
# text naively.
TRICKY = {
    "keyword after a digit": "x = 1if y else 2\n",
    # Six indentation levels, the last one a single tab (column 8).
    "tab indentation after spaces": "".join(" " * i + f"if a{i}:\n" for i in range(6)) + "\tx = y + z + w\n",
    "form feed inside a logical line": "x = 1 + 2 \x0c+ 3 + 4 + 5 + 6\n",
    "brackets inside an f-string": "x = f'{a[b[c[d]]]}' + f\"{(((1)))}\"\n",
    "closing brackets inside a string": "x = foo(')))', [1 + 2 + 3])\n",
    "quote inside a comment": "x = (1 +  # it's\n     2 + 3)\n",
    "hash inside a string": "x = ('#' + a + b + c)\n",
    "triple-quoted string with brackets": 'x = """)]}\n((("""\ny = (1 + 2 + 3)\n',
    "escaped quote": "x = 'a\\'' + (b + c + d)\n",
    "raw string ending with an escaped quote": "x = r'\\'' + (b + c)\n",
    "line continuation": "x = 1 + \\\n    2 + \\\n    3 + 4\n",
    "a close before an open on one line": "x = [\n1 + 2 + 3] + (\n4 + 5)\n",
    "deep indentation": "".join(" " * i + "if x:\n" for i in range(0, 40)) + " " * 40 + "y = a.b.c(d[e])\n",
    "lambda and conditional chains": "f = lambda a: lambda b: a if b else not a or b and a in b is not None\n",
    "walrus, matrix product, ellipsis": "if (n := a @ b) is ...:\n    x = -~+n ** 2 // 3 >> 1\n",
    "CRLF line ends": "x = (1 +\r\n     2)\r\ny = [a,\r b + c]\r",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_quick_bound_is_never_below_the_tokens_count(name):
    source = TRICKY[name]
    exact = parsing.nesting(source)
    assert exact.complete
    assert parsing.quick_bound(source) >= exact.units


def test_quick_bound_holds_on_every_file_of_the_project():
    checked = 0
    for path in sorted([*(ROOT / "gradlint").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        source = path.read_text(encoding="utf-8")
        exact = parsing.nesting(source)
        if exact.complete:
            assert parsing.quick_bound(source) >= exact.units, path
            checked += 1
    assert checked > 100


def test_unbalanced_brackets_have_no_quick_bound():
    assert parsing.quick_bound("x = (1,\n") is None
    with pytest.raises(parsing.NotParsed, match=r"^'\(' was never closed$"):
        parsing.check("x = (1,\n")


def test_a_source_past_the_quick_bound_is_counted_from_its_tokens():
    source = "x = 1" + " + 1" * 300 + "\n"
    assert parsing.quick_bound(source) > parsing.DIRECT_NESTING
    assert parsing.check(source) == parsing.nesting(source).units == 302


def test_source_cpython_refuses_keeps_cpythons_message_after_the_quick_bound():
    # LibCST refuses the source in its own words; users get CPython's.
    source = "if x:\n    y = 1\n  z = 2\n"
    assert parsing.quick_bound(source) <= parsing.DIRECT_NESTING
    with pytest.raises(parsing.NotParsed) as raised:
        parsing.parse_module(source)
    assert (raised.value.line, raised.value.message) == (3, "unindent does not match any outer indentation level")


def test_source_only_libcst_refuses_keeps_libcsts_error():
    with pytest.raises(cst.ParserSyntaxError):
        parsing.parse_module("print 'x'\n")


def test_parsing_skips_libcsts_node_checks_and_restores_them():
    # Measured on the LibCST this project installs: if its node checks change
    # shape, parsing falls back to checking every node, and this says so.
    assert parsing._SKIP_VALIDATION
    calls = []
    real = cst.Name._validate
    cst.Name._validate = lambda self: calls.append(self.value)  # type: ignore[method-assign]
    try:
        module = parsing.parse_module("x = y\n")
        cst.Name("z")
    finally:
        cst.Name._validate = real  # type: ignore[method-assign]
    assert module.code == "x = y\n"
    assert calls == ["z"]
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


PARSER_CASES = [
    "x = y\n",
    "import torch\r\nwith torch.no_grad():\r\n    y = f(x)\r\n",
    "def f(a, /, *b, c=1, **d):\n\treturn a  # tab\n",
    "x = 1\r",
    "",
    "if x:\n    pass",  # no final newline
    "s = 'é' + f'{a!r:>{w}}'\n",
    "\x0cclass A:\n  def m(self): ...\n",
]


@pytest.mark.parametrize("source", PARSER_CASES)
def test_the_native_parser_called_directly_builds_what_parse_module_builds(source):
    # parsing._parser skips cst.parse_module's own module (its imports are a start-up cost);
    # it must make the same tree, written back to the same text.
    ours = parsing._parser()(source)
    theirs = cst.parse_module(source)
    assert parsing._parser() is not cst.parse_module  # the native parser is the one measured
    assert ours.deep_equals(theirs)
    assert (ours.code, ours.encoding, ours.default_newline, ours.default_indent, ours.has_trailing_newline) == (
        theirs.code, theirs.encoding, theirs.default_newline, theirs.default_indent, theirs.has_trailing_newline)


@pytest.mark.parametrize("source", ["print 'x'\n", "def f(:\n    pass\n", "x = (1,\n"])
def test_the_native_parser_called_directly_raises_what_parse_module_raises(source):
    with pytest.raises(cst.ParserSyntaxError) as ours:
        parsing._parser()(source)
    with pytest.raises(cst.ParserSyntaxError) as theirs:
        cst.parse_module(source)
    assert (str(ours.value), ours.value.raw_line, ours.value.raw_column) == (str(theirs.value), theirs.value.raw_line, theirs.value.raw_column)


@pytest.mark.parametrize("name, source", [
    ("parse_expression", "torch.no_grad()"),
    ("parse_expression", "torch.inference_mode(mode=False)"),
    ("parse_expression", "a if b else (c, *d)"),
    ("parse_statement", "import torch"),
    ("parse_statement", "import torch.nn.functional\n"),
    ("parse_statement", "with torch.no_grad():\n    y = f(x)\n"),
])
def test_codegen_parses_snippets_as_libcst_does(name, source):
    # codegen's snippets (a fix's `with` item, decorator, added import) skip the
    # module of cst.parse_expression and cst.parse_statement, as parsing._parser does.
    from gradlint import codegen

    ours = (codegen.expr if name == "parse_expression" else codegen.statement)(source)
    theirs = getattr(cst, name)(source)
    assert codegen._parser(name) is not getattr(cst, name)
    assert ours.deep_equals(theirs)
    assert cst.Module(body=[]).code_for_node(ours) == cst.Module(body=[]).code_for_node(theirs)


@pytest.mark.parametrize("name, source", [("parse_expression", "torch.no_grad("), ("parse_statement", "import")])
def test_codegen_raises_what_libcst_raises(name, source):
    from gradlint import codegen

    with pytest.raises(cst.ParserSyntaxError) as ours:
        (codegen.expr if name == "parse_expression" else codegen.statement)(source)
    with pytest.raises(cst.ParserSyntaxError) as theirs:
        getattr(cst, name)(source)
    assert str(ours.value) == str(theirs.value)
