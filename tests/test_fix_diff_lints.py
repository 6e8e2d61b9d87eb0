"""``--diff`` lints the fixed text only for fixes (``fix_source(remaining=False)``).

What is left after fixing is not shown by ``--diff``, so the lints after the
first run only the rules whose catalog entry lets them build a fix the loop
applies (``engine.fixing_codes``). Here the loop with and without that gives
the same fixed text, counts, problems and first lint on every fixture and rule
case, and ``Rule.fix`` holds each rule to the word it is left out by.
"""

from __future__ import annotations

import libcst as cst
import pytest
from harness import FIX_CORPUS

from gradlint import catalog
from gradlint.catalog import load
from gradlint.engine import LintSettings, fix_source, fixing_codes
from gradlint.rule import FileContext
from gradlint.rules import rule_classes

CORPUS = FIX_CORPUS
RULES = frozenset(load()) - catalog.DIRECTIVE_CODES
NO_FIX = frozenset({"GL000", "GL004", "GL103", "GL104", "GL105", "GL107"})
UNSAFE_ONLY = frozenset({"GL201", "GL202", "GL203", "GL204", "GL303"})

# A fixable GL002 next to GL004 findings, which have no fix: GL004's stay in the text.
MIXED = """\
import torch
from torch.autograd import Variable


def sample(decoder, z):
    z.volatile = True
    return decoder(Variable(torch.zeros(3)))
"""


def _key(findings):
    return [(f.code, f.start, f.end, f.message) for f in findings]


def test_fixing_codes_follow_the_catalog():
    assert {c for c, d in load().items() if d.fix == "none"} - catalog.DIRECTIVE_CODES == NO_FIX
    assert {c for c, d in load().items() if d.fix == "unsafe"} == UNSAFE_ONLY
    assert fixing_codes(RULES, unsafe=False) == RULES - NO_FIX - UNSAFE_ONLY
    assert fixing_codes(RULES, unsafe=True) == RULES - NO_FIX
    assert fixing_codes(RULES, unsafe=False, trusted=frozenset({"GL201", "GL004"})) == RULES - NO_FIX - UNSAFE_ONLY | {"GL201"}


def test_diff_lints_leave_out_rules_without_fixes():
    settings = LintSettings(RULES)
    full = fix_source(MIXED, "m.py", settings)
    diff = fix_source(MIXED, "m.py", settings, remaining=False)
    assert diff.source == full.source
    assert "decoder(torch.zeros(3))" in diff.source
    assert dict(diff.fixed) == dict(full.fixed) == {"GL002": 1}
    assert _key(diff.original.findings) == _key(full.original.findings)
    assert [(f.code, f.start) for f in full.remaining] == [("GL004", (5, 4))]
    assert diff.remaining == []  # GL004 was not run on the fixed text


def test_directive_codes_keep_every_rule():
    # An unused-noqa finding (which has a fix) depends on what every rule finds.
    settings = LintSettings(RULES | catalog.DIRECTIVE_CODES)
    diff = fix_source(MIXED, "m.py", settings, remaining=False)
    assert [(f.code, f.start) for f in diff.remaining] == [("GL004", (5, 4))]


@pytest.mark.parametrize("unsafe", [False, True])
def test_diff_loop_writes_what_the_full_loop_writes(unsafe):
    settings = LintSettings(RULES)
    compared = 0
    for path in CORPUS:
        source = path.read_text(encoding="utf-8")
        full = fix_source(source, str(path), settings, unsafe=unsafe)
        diff = fix_source(source, str(path), settings, unsafe=unsafe, remaining=False)
        assert diff.source == full.source, path
        assert dict(diff.fixed) == dict(full.fixed), path
        assert diff.problems == full.problems, path
        assert _key(diff.original.findings) == _key(full.original.findings), path
        if diff.final is diff.original:  # nothing applied: the first lint, of every rule, is the last
            assert _key(diff.remaining) == _key(full.remaining), path
        else:
            kept = fixing_codes(RULES, unsafe)
            assert _key(diff.remaining) == _key(f for f in full.remaining if f.code in kept), path
        compared += diff.source != source
    assert compared > 50


@pytest.mark.parametrize(
    ("code", "applicability"),
    [("GL004", "safe"), ("GL004", "unsafe"), ("GL201", "safe"), ("GL303", "safe")],
)
def test_rule_fix_keeps_to_the_catalog(code, applicability):
    module = cst.parse_module("x = 1\n")
    rule = rule_classes([code])[code](FileContext("m.py", "x = 1\n", module))
    with pytest.raises(ValueError, match=f"{code}: catalog says fix = "):
        rule.fix(title="t", applicability=applicability)


def test_rule_fix_allows_what_the_catalog_says():
    module = cst.parse_module("x = 1\n")
    rule = rule_classes(["GL201"])["GL201"](FileContext("m.py", "x = 1\n", module))
    assert rule.fix(title="t", applicability="unsafe").applicability == "unsafe"
    assert rule.fix(title="t").applicability == "unsafe"


def test_diff_without_fixes_reports_every_rule(tmp_path):
    # Nothing to fix: ``--diff`` prints nothing and its report (what the cache keeps)
    # holds the first lint's findings, of every rule.
    from gradlint.runner import Mode, lint_file

    path = tmp_path / "m.py"
    path.write_text(MIXED.replace("Variable(torch.zeros(3))", "torch.zeros(3)").replace("from torch.autograd import Variable\n", ""))
    report = lint_file(path, LintSettings(RULES), Mode(diff=True))
    assert report.diff in (None, "")
    assert [(d.code, d.row, d.column) for d in report.diagnostics] == [("GL004", 5, 5)]


def test_diff_keeps_the_round_a_fix_exposes():
    # GL002 passes over `Variable(x, volatile=False)` (GL001's finding); once GL001's fix
    # removes the flag, the next round's lint finds `Variable(x)` and fixes it.
    source = (
        "import torch\n"
        "from torch.autograd import Variable\n\n\n"
        "def prepare(batch, device):\n"
        '    images = Variable(batch["image"].to(device), volatile=False)\n'
        "    return images\n"
    )
    result = fix_source(source, "m.py", LintSettings(RULES), remaining=False)
    assert [(f.code, f.start) for f in result.original.findings if f.code in ("GL001", "GL002")] == [("GL001", (6, 13))]
    assert dict(result.fixed) == {"GL001": 1, "GL002": 1}
    assert result.source == (
        "import torch\n\n\n"
        "def prepare(batch, device):\n"
        '    images = batch["image"].to(device).detach()\n'
        "    return images\n"
    )
