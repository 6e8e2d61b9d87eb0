"""The parse of a round's fixed text spliced from the rebuilt top-level statements
(``reparse.spliced_parse``) is the parse of the whole text, on every fixture and
case, each round of the fix loop, safe and unsafe; and where it cannot tell, it
says so (None) and the whole text is parsed."""

from __future__ import annotations

import libcst as cst
import pytest
from harness import FIX_CORPUS

from gradlint import catalog, engine, parsing
from gradlint.catalog import load
from gradlint.engine import LintSettings, fix_source
from gradlint.fixes import applied
from gradlint.reparse import spliced_parse
from gradlint.traversal import positions, top_level_code

CORPUS = FIX_CORPUS
RULES = frozenset(load()) - catalog.DIRECTIVE_CODES


def _whole(text):
    try:
        return parsing.parse_module(text)
    except (parsing.NotParsed, cst.ParserSyntaxError):
        return None


def test_spliced_parse_is_the_whole_parse_in_every_fix_round(monkeypatch):
    made = []

    def checked(old, new, text, old_code, new_code):
        found = spliced_parse(old, new, text, old_code, new_code)
        whole = _whole(text)
        if found is not None:
            assert whole is not None and found.deep_equals(whole), text
            assert found.code == text
            # The statements the fixes left alone are the same objects.
            kept = {id(s) for s in old.body}
            assert sum(id(s) in kept for s in found.body) == sum(id(s) in kept for s in new.body)
        made.append(found is not None)
        return found

    monkeypatch.setattr(engine, "spliced_parse", checked)
    settings = LintSettings(RULES)
    texts = []
    for path in CORPUS:
        source = path.read_text(encoding="utf-8")
        for unsafe in (False, True):
            texts.append(fix_source(source, str(path), settings, unsafe=unsafe).source)
    # Most rounds are spliced: the test compares something.
    assert made.count(True) > 100 and made.count(True) > 3 * made.count(False), (made.count(True), made.count(False))
    monkeypatch.setattr(engine, "spliced_parse", lambda *a: None)
    whole = []
    for path in CORPUS:
        source = path.read_text(encoding="utf-8")
        for unsafe in (False, True):
            whole.append(fix_source(source, str(path), settings, unsafe=unsafe).source)
    assert texts == whole


def _splice(source, rebuild, whole_text_parses=True):
    """spliced_parse of ``source`` with the top-level statements ``rebuild`` (indices)
    rebuilt by ``rebuild[i]`` (a function of the statement): (the result, the whole parse)."""
    old = cst.parse_module(source)
    rendered: list = []
    positions(old, rendered)
    known = top_level_code(old, rendered)
    body = [rebuild[i](s) if i in rebuild else s for i, s in enumerate(old.body)]
    new = old.with_changes(body=body)
    new_code = dict(known)
    for s in body:
        new_code.setdefault(id(s), (s, new.code_for_node(s)))
    text = new.code
    return spliced_parse(old, new, text, known, new_code), _whole(text)


def _rename(name):
    return lambda s: s.with_changes(name=cst.Name(name)) if isinstance(s, (cst.FunctionDef, cst.ClassDef)) else s.deep_clone()


@pytest.mark.parametrize(
    "source, rebuild",
    [
        # Comments before a rebuilt statement: its leading lines, not a header.
        ("x = 1\n\n# one\n\n# two\ndef f():\n    return 1\n", {1: _rename("g")}),
        # The first statement rebuilt, with no header: the module's header is what its
        # parse alone puts there.
        ("def f():\n    return 1\nx = 1\n", {0: _rename("g")}),
        # Rebuilt after a compound statement whose block ends in a comment of its own.
        ("def f():\n    return 1\n    # f's\n\n# x's\nx = 1\n", {1: _rename("g")}),
        # A rebuilt compound statement keeps the indented comment that ends its block.
        ("def f():\n    return 1\n\n    # f's\nx = 1\n", {0: _rename("g")}),
        # Tabs and CRLF, read the same from the statement alone.
        ("def f():\r\n\treturn 1\r\nx = 1\r\n", {1: _rename("g")}),
        ("x = 1\r\ndef f():\r\n\treturn 1\r\n", {1: _rename("g")}),
    ],
)
def test_spliced_cases(source, rebuild):
    found, whole = _splice(source, rebuild)
    assert found is not None and whole is not None
    assert found.deep_equals(whole)


@pytest.mark.parametrize(
    "source, rebuild",
    [
        # An indented comment after a compound statement belongs to its block's footer.
        ("def f():\n    return 1\nx = 1\n", {1: lambda s: s.with_changes(leading_lines=[cst.EmptyLine(whitespace=cst.SimpleWhitespace("    "), comment=cst.Comment("# f's"))])}),
        # The first statement rebuilt below a header the module keeps.
        ("# head\n\nx = 1\ndef f():\n    return 1\n", {0: lambda s: s.deep_clone()}),
        # The file's first indented block rebuilt: the default indentation is read from it.
        ("def f():\n  return 1\ndef g():\n    return 1\n", {0: lambda s: s.with_changes(body=s.body.with_changes(indent="    "))}),
        # A statement that does not parse alone.
        ("x = 1\ny = 2\n", {1: lambda s: s.with_changes(body=[cst.Expr(cst.Name("lambda"))])}),
    ],
)
def test_not_spliced(source, rebuild):
    found, _ = _splice(source, rebuild)
    assert found is None


def test_whole_parse_where_nothing_is_known():
    old = cst.parse_module("x = 1\n")
    text, new, codes = applied(old, [])
    assert codes is None
    assert spliced_parse(old, new, text, None, codes) is None


def test_parents_taken_from_the_previous_tree_are_a_fresh_walks(monkeypatch):
    # The next lint's tree takes the unchanged statements' parents and walk order from
    # the last tree recorded (``tree._record_reusing``): the same as walking it.
    from gradlint.semantic import tree as tree_module
    from gradlint.traversal import record_parents

    reused = []
    real = tree_module._record_reusing

    def checked(module, previous, parents, starts, ends, nodes):
        real(module, previous, parents, starts, ends, nodes)
        shared = {id(s) for s in previous.module.body} & {id(s) for s in module.body}
        fresh_parents, fresh_starts, fresh_ends, fresh_nodes = {id(module): None}, {}, {}, []
        record_parents(module, fresh_parents, fresh_starts, fresh_ends, fresh_nodes)
        assert len(nodes) == len(fresh_nodes) and all(a is b for a, b in zip(nodes, fresh_nodes))
        assert starts == fresh_starts and ends == fresh_ends
        assert {k: id(v) for k, v in parents.items()} == {k: id(v) for k, v in fresh_parents.items()}
        reused.append(len(shared))

    monkeypatch.setattr(tree_module, "_record_reusing", checked)
    settings = LintSettings(RULES)
    for path in CORPUS:
        fix_source(path.read_text(encoding="utf-8"), str(path), settings, unsafe=True)
    # A lint whose findings need no position (none, or only edits never asked where) renders nothing.
    assert sum(n > 0 for n in reused) > 50, reused


def test_parents_of_a_tree_sharing_statements():
    from gradlint.semantic.tree import Tree

    old = cst.parse_module("import torch\n\n\ndef f(x):\n    return x.data\n\n\ndef g(y):\n    return y\n")
    first = Tree(old)
    first.nodes()
    new = old.with_changes(body=[old.body[0], cst.parse_statement("def h(z):\n    return z\n"), old.body[2]])
    second = Tree(new)
    nodes = second.nodes()
    assert [type(n).__name__ for n in nodes[:3]] == ["Module", "SimpleStatementLine", "Import"]
    assert second.parent(old.body[2]) is new and second.parent(old.body[2].body) is old.body[2]
    ret = old.body[2].body.body[0]
    assert second.order(ret)[0] == nodes.index(ret) and second.order(new) == (0, len(nodes) - 1)
    assert second.order(old.body[2]) == (nodes.index(old.body[2]), len(nodes) - 1)


def test_positions_taken_from_the_last_rendering_are_a_fresh_renderings(monkeypatch):
    # The next lint's positions take the unchanged top-level statements' spans from the
    # last rendering, moved by the lines between (``traversal._render_reusing``): the
    # same spans, tokens and top-level code as rendering the module whole.
    from gradlint import traversal

    reused = []
    real = traversal._render_reusing

    def checked(module, old):
        state = real(module, old)
        fresh = traversal._PositionState(module.default_indent, module.default_newline)
        module._codegen(fresh)
        if state is not None:
            assert state.spans == fresh.spans
            assert "".join(state.tokens) == "".join(fresh.tokens) == module.code
            assert top_level_code(module, [state.tokens, state.marks]) == top_level_code(module, [fresh.tokens, fresh.marks])
            assert (state.lines, state.columns, state.span_marks) == (fresh.lines, fresh.columns, fresh.span_marks)
            # The next round takes from this rendering as from a fresh one.
            assert state.entered == fresh.entered == len(fresh.spans)
            reused.append(len({id(s) for s in old.nodes} & {id(s) for s in module.body}))
        return state

    monkeypatch.setattr(traversal, "_render_reusing", checked)
    settings = LintSettings(RULES)
    for path in CORPUS:
        for unsafe in (False, True):
            fix_source(path.read_text(encoding="utf-8"), str(path), settings, unsafe=unsafe)
    # A lint whose findings need no position (none, or only edits never asked where) renders nothing.
    assert sum(n > 0 for n in reused) > 50, reused


def _spans_by_node(module):
    from gradlint import traversal

    traversal._last[0] = None
    return traversal.positions(module)


@pytest.mark.parametrize(
    "source, change, moved",
    [
        # A statement two lines longer before ``g``: ``g``'s spans move down two lines.
        ("import torch\n\n\ndef f(x):\n    return x\n\n\ndef g(y):\n    return y.data\n", 1, 2),
        # The same number of lines: taken as they were.
        ("def f(x):\n    return x\n\n\ndef g(y):\n    return y.data\n", 0, 0),
    ],
)
def test_positions_of_a_module_sharing_statements(source, change, moved):
    from gradlint import traversal

    old = cst.parse_module(source)
    before = _spans_by_node(old)
    body = list(old.body)
    code = "def f(x):\n    y = x\n    z = y\n    return z\n" if moved else "def f(a):\n    return a\n"
    body[change] = cst.parse_statement(code).with_changes(leading_lines=body[change].leading_lines)
    new = old.with_changes(body=body)
    after = traversal.positions(new)  # reuses ``old``'s rendering
    last = old.body[-1]
    ret = last.body.body[0].body[0].value  # y.data
    line, column, end_line, end_column = before[id(ret)]
    assert after[id(ret)] == (line + moved, column, end_line + moved, end_column)
    assert after == _spans_by_node(new)


def test_positions_not_reused_across_shared_nodes_or_other_newlines():
    from gradlint import traversal

    stmt = cst.parse_statement("x = y.data\n")
    # One statement object in two places: its spans depend on which place is asked.
    twice = cst.Module(body=[stmt, stmt])
    traversal._last[0] = None
    traversal.positions(twice)
    assert not traversal._last[0].clean
    assert traversal._render_reusing(cst.Module(body=[stmt]), traversal._last[0]) is None
    once = cst.Module(body=[stmt])
    traversal._last[0] = None
    traversal.positions(once)
    assert traversal._last[0].clean
    crlf = once.with_changes(default_newline="\r\n")
    assert traversal._render_reusing(crlf, traversal._last[0]) is None
    assert traversal._render_reusing(once.with_changes(body=[stmt, stmt]), traversal._last[0]) is None
