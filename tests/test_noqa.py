"""`# noqa` as in Ruff: a directive at the end of a logical line covers every
physical line of it; unused (GL900) and invalid (GL901) directives are findings
when selected, with fixes; --add-noqa puts a directive where it works."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import tokenize

import pytest

from gradlint import catalog
from gradlint.add_noqa import add_noqa
from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.noqa import NoqaMap, PlacementReader

ALL = frozenset(c for c, d in catalog.load().items() if d.default)
WITH_DIRECTIVES = ALL | catalog.DIRECTIVE_CODES


def _found(source: str, codes=ALL):
    return [(f.code, f.start[0], f.start[1] + 1) for f in lint_source(textwrap.dedent(source), "m.py", LintSettings(codes)).findings]


def _fixed(source: str, codes=WITH_DIRECTIVES, unsafe: bool = False) -> str:
    return fix_source(textwrap.dedent(source), "m.py", LintSettings(codes), unsafe=unsafe).source


CONTINUED = """\
    from torch.autograd import Variable


    def f(x):
        return Variable(x, volatile=True) + \\
            x{comment}
    """


def test_a_directive_at_the_end_of_a_backslash_continued_line_covers_its_first_line():
    assert _found(CONTINUED.format(comment="")) == [("GL001", 5, 12)]
    assert _found(CONTINUED.format(comment="  # noqa: GL001")) == []
    assert _found(CONTINUED.format(comment="  # noqa")) == []
    # another code does not
    assert _found(CONTINUED.format(comment="  # noqa: GL003")) == [("GL001", 5, 12)]


def test_a_directive_after_a_multi_line_string_covers_the_statement_it_ends():
    source = '''\
    from torch.autograd import Variable

    x = Variable(t, volatile=True), """
    text
    """{comment}
    '''
    assert _found(source.format(comment="")) == [("GL001", 3, 5)]
    assert _found(source.format(comment="  # noqa: GL001")) == []


def test_a_directive_inside_the_logical_line_covers_only_its_own_line():
    source = """\
    from torch.autograd import Variable

    x = (1,  # noqa: GL001
         Variable(t, volatile=True))
    """
    assert _found(source) == [("GL001", 4, 6)]


def test_logical_lines_and_rows_that_take_no_comment():
    noqa = NoqaMap('a = 1\nb = f(x, """\ny""") + \\\n    2\nc = [1,\n     2]\n')
    assert noqa.logical_end == {2: 4, 3: 4, 4: 4, 5: 6, 6: 6}
    assert noqa.no_comment == {2, 3}
    assert [noqa.placement(r) for r in (1, 2, 3, 4, 5)] == [1, 4, 4, 4, 5]


PLACEMENT_SOURCES = [
    'a = 1\nb = f(x, """\ny""") + \\\n    2\nc = [1,\n     2]\n',
    'x = """a\nb\n""" + f(\n1)\n# end\n',
    "if x:\n    y = 1 + \\\n        2\n\n    # a comment\nz = 3",
    # Not tokenizable to the end: no row moves, however much of the start reads.
    'a = """x\ny""" + \\\n    1\nb = """never closed\n',
    "a = (1 +\n     2) + \\\n    3\nif x:\n  y\n z\n",
    "s = '''a\r\nb'''\ry = 2 + \\\r3\r",
]


@pytest.mark.parametrize("source", PLACEMENT_SOURCES)
def test_placement_read_row_by_row_is_the_whole_files(source):
    whole = NoqaMap(source)
    rows = range(1, source.count("\n") + source.count("\r") + 3)
    assert any(whole.placement(r) != r for r in rows) or not whole.tokenized
    in_order, backwards = PlacementReader(source), PlacementReader(source)
    assert [in_order(r) for r in rows] == [whole.placement(r) for r in rows]
    assert [backwards(r) for r in reversed(rows)] == [whole.placement(r) for r in reversed(rows)]
    for r in rows:  # each row asked first, on its own
        assert PlacementReader(source)(r) == whole.placement(r)


def test_placement_reads_only_up_to_the_rows_logical_line():
    table = "import torch\nTABLE = [\n" + "    (1, 'x'),\n" * 1000 + "]\nx = 1 + \\\n    2\n"
    read = []
    readline = io.StringIO(table).readline

    def counting():
        read.append(1)
        return readline()

    reader = PlacementReader(table)
    reader._tokens = tokenize.generate_tokens(counting)
    assert reader(1) == 1
    assert len(read) == 1
    assert reader(1004) == 1005  # a backslash: the rest of the file is read
    assert reader(1004) == NoqaMap(table).placement(1004)
    assert len(read) == table.count("\n") + 1


# -- GL900 unused-noqa, GL901 invalid-noqa ---------------------------------------

UNUSED = """\
    import torch


    def predict(model, x):
        with torch.no_grad():  {comment}
            return model(x)
    """


@pytest.mark.parametrize(
    "comment,findings,fixed",
    [
        # the code silences nothing: reported at the directive, and removed
        ("# noqa: GL101", [("GL900", 5, 28)], ""),
        # other tools' codes stay, and so does the text around the directive
        ("# noqa: GL101, E501", [("GL900", 5, 28)], "# noqa: E501"),
        ("# type: ignore  # noqa: GL101", [("GL900", 5, 44)], "# type: ignore"),
        ("# noqa: GL101  why", [("GL900", 5, 28)], "# why"),
        # a blanket directive and other tools' codes are not judged
        ("# noqa", [], None),
        ("# noqa: E501", [], None),
        # a directive can silence the finding about itself, as in Ruff
        ("# noqa: GL101, GL900", [], None),
    ],
)
def test_unused_codes_are_reported_and_removed(comment, findings, fixed):
    source = UNUSED.format(comment=comment)
    assert _found(source, WITH_DIRECTIVES) == findings
    expected = textwrap.dedent(source) if fixed is None else textwrap.dedent(UNUSED.format(comment=fixed)).replace("():  \n", "():\n")
    assert _fixed(source) == expected
    assert _fixed(expected) == expected


def test_unused_noqa_is_off_by_default_and_judges_only_enabled_codes():
    source = UNUSED.format(comment="# noqa: GL101")
    assert _found(source) == []
    # GL101 not checked in this run: nothing shows whether it would silence something
    assert _found(source, frozenset({"GL003", catalog.UNUSED_NOQA})) == []
    assert catalog.load()[catalog.UNUSED_NOQA].default is False
    assert catalog.load()[catalog.INVALID_NOQA].default is False


def test_the_message_names_every_unused_code():
    source = "import torch\nx = torch.ones(1)  # noqa: GL101,GL003\n"
    (finding,) = lint_source(source, "m.py", LintSettings(WITH_DIRECTIVES)).findings
    assert (finding.code, finding.message) == ("GL900", "Unused `noqa` directive (unused: `GL101`, `GL003`)")
    assert (finding.start, finding.end) == ((2, 19), (2, 38))


def test_a_used_code_is_kept_when_an_unused_one_is_removed():
    source = "def f(loss):\n    return loss.sum().data[0]  # noqa: GL003, GL101\n"
    assert _found(source, WITH_DIRECTIVES) == [("GL900", 2, 32)]
    assert _fixed(source) == "def f(loss):\n    return loss.sum().data[0]  # noqa: GL003\n"


def test_a_file_no_rule_looks_at_still_has_its_directives_judged_and_fixed():
    source = "x = 1  # noqa: GL003\ny = 2\n"
    assert _found(source, WITH_DIRECTIVES) == [("GL900", 1, 8)]
    assert _fixed(source) == "x = 1\ny = 2\n"


@pytest.mark.parametrize(
    "comment,message,fixed,unsafe",
    [
        ("# noqa: GL999", "Invalid `noqa` directive: unknown rule code in `# noqa`: `GL999`", "", False),
        ("# noqa: GL999, E501", "Invalid `noqa` directive: unknown rule code in `# noqa`: `GL999`", "  # noqa: E501", False),
        (
            "# noqa GL103",
            "Invalid `noqa` directive: `# noqa GL103` has no colon, so it silences every code on the line, not only `GL103`",
            "  # noqa: GL103",
            True,
        ),
    ],
)
def test_invalid_directives(comment, message, fixed, unsafe):
    source = f"def step(loss):\n    loss.backward()  {comment}\n"
    (finding,) = lint_source(source, "m.py", LintSettings(frozenset({catalog.INVALID_NOQA}))).findings
    assert (finding.code, finding.message, finding.start) == ("GL901", message, (2, 21))
    assert finding.fix is not None and finding.fix.applicability == ("unsafe" if unsafe else "safe")
    codes = frozenset({catalog.INVALID_NOQA})
    expected = f"def step(loss):\n    loss.backward(){fixed}\n"
    assert _fixed(source, codes, unsafe=True) == expected
    assert _fixed(source, codes, unsafe=False) == (source if unsafe else expected)


# -- --add-noqa --------------------------------------------------------------------


def test_add_noqa_reports_rows_no_comment_can_reach():
    new, added, unplaced = add_noqa("x = 1\n", {1: {"GL003"}, 7: {"GL001"}})
    assert (new, added, unplaced) == ("x = 1  # noqa: GL003\n", 1, [7])


def test_add_noqa_merges_findings_of_several_lines_of_one_logical_line():
    source = "a = loss.data[0] + \\\n    loss.volatile\n"
    new, added, unplaced = add_noqa(source, {1: {"GL003"}, 2: {"GL004"}})
    assert (new, added, unplaced) == ("a = loss.data[0] + \\\n    loss.volatile  # noqa: GL003, GL004\n", 1, [])


def test_check_with_the_directive_codes_selected_exits_1_and_fixes(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import torch\nx = torch.ones(1)  # noqa: GL003\n")
    cmd = [sys.executable, "-m", "gradlint", "check", "--no-cache", "--output-format", "concise", "--extend-select", "GL900"]
    proc = subprocess.run([*cmd, "m.py"], cwd=tmp_path, capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (
        1,
        "m.py:2:20: GL900 [*] Unused `noqa` directive (unused: `GL003`)\nFound 1 problem (1 fixable with --fix).\n",
    )
    proc = subprocess.run([*cmd, "--fix", "m.py"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0
    assert path.read_text() == "import torch\nx = torch.ones(1)\n"


def test_json_noqa_row_is_where_the_directive_works(tmp_path):
    import json

    (tmp_path / "m.py").write_text("def f(loss):\n    return loss.sum().data[0] + \\\n        1, loss.sum().data[0]\n")
    cmd = [sys.executable, "-m", "gradlint", "check", "--no-cache", "--output-format", "json", "m.py"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    rows = [(d["location"]["row"], d["noqa_row"]) for d in json.loads(proc.stdout)]
    assert rows == [(2, 3), (3, 3)]
