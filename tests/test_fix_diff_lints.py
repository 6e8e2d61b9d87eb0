"""``--diff`` lints only for fixes (``fix_source(remaining=False)``).

``--diff`` prints the fixed text, the number of fixes and an exit code of the
diff alone, never a finding, so every lint of its loop, the first too, runs only
the rules whose catalog entry lets them build a fix the loop applies
(``engine.fixing_codes``). Here the loop with and without that gives the same
fixed text, counts, problems and, of those rules, findings on every fixture and
rule case, and ``Rule.fix`` holds each rule to the word it is left out by.
"""

from __future__ import annotations

import re

import libcst as cst
import pytest
from harness import FIX_CORPUS, FIXTURES

from gradlint import catalog
from gradlint.catalog import load
from gradlint.engine import LintSettings, fix_allowed, fix_source, fixing_codes
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
    assert [(f.code, f.start) for f in full.original.findings] == [("GL004", (6, 4)), ("GL002", (7, 19))]
    # GL004 (fix = "none") was run on neither text.
    assert [(f.code, f.start) for f in diff.original.findings] == [("GL002", (7, 19))]
    assert [(f.code, f.start) for f in full.remaining] == [("GL004", (5, 4))]
    assert diff.remaining == []


def test_diff_first_lint_runs_no_rule_without_a_fix(monkeypatch):
    gl004 = rule_classes(["GL004"])["GL004"]
    visited = []
    for name in [n for n in dir(gl004) if n.startswith(("visit_", "leave_"))]:
        method = getattr(gl004, name)
        monkeypatch.setattr(gl004, name, lambda self, node, _m=method: visited.append(node) or _m(self, node))
    fix_source(MIXED, "m.py", LintSettings(RULES), remaining=False)
    assert visited == []
    fix_source(MIXED, "m.py", LintSettings(RULES))
    assert visited  # the same rule, in the loop that reads what is left


def test_directive_codes_keep_every_rule():
    # An unused-noqa finding (which has a fix) depends on what every rule finds.
    settings = LintSettings(RULES | catalog.DIRECTIVE_CODES)
    diff = fix_source(MIXED, "m.py", settings, remaining=False)
    assert [(f.code, f.start) for f in diff.original.findings] == [("GL004", (6, 4)), ("GL002", (7, 19))]
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
        # Of the rules that can fix, the same findings with a fix the loop applies: leaving
        # the other rules out changes none of theirs, and no other finding is made
        # (``LintSettings.fixable_only``). A syntax error is reported whatever the selection.
        kept = fixing_codes(RULES, unsafe) | {catalog.PARSE_ERROR}

        def applied(findings):
            return _key(f for f in findings if f.code in kept and (f.code == catalog.PARSE_ERROR or fix_allowed(f.fix, unsafe)))

        assert _key(diff.original.findings) == applied(full.original.findings), path
        assert _key(diff.remaining) == applied(full.remaining), path
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


def test_diff_without_fixes_runs_only_the_fixing_rules(tmp_path):
    # Nothing to fix: ``--diff`` prints nothing, and its report (neither printed nor
    # cached) holds the findings of the rules that can fix: here none.
    from gradlint.runner import Mode, lint_file

    path = tmp_path / "m.py"
    path.write_text(MIXED.replace("Variable(torch.zeros(3))", "torch.zeros(3)").replace("from torch.autograd import Variable\n", ""))
    report = lint_file(path, LintSettings(RULES), Mode(diff=True))
    assert report.diff in (None, "")
    assert report.diagnostics == []
    assert [(d.code, d.row, d.column) for d in lint_file(path, LintSettings(RULES), Mode()).diagnostics] == [("GL004", 5, 5)]


def test_no_op_flag_and_its_wrapper_go_in_one_round(monkeypatch):
    # `Variable(x, volatile=False)` is `Variable(x)`: GL001's fix gives GL002's safe fix
    # of it at once, so the loop lints twice (the fixing round and the one that finds
    # nothing), not three times, and counts the one finding the text as written has.
    import gradlint.engine as engine

    lints = []
    real = engine.lint_source
    monkeypatch.setattr(engine, "lint_source", lambda *a, **k: lints.append(a[0]) or real(*a, **k))
    source = (
        "import torch\n"
        "from torch.autograd import Variable\n\n\n"
        "def prepare(batch, device):\n"
        '    images = Variable(batch["image"].to(device), volatile=False)\n'
        "    return images\n"
    )
    result = fix_source(source, "m.py", LintSettings(RULES), remaining=False)
    assert [(f.code, f.start) for f in result.original.findings if f.code in ("GL001", "GL002")] == [("GL001", (6, 13))]
    assert [f.fix.title for f in result.original.findings if f.code == "GL001"] == [
        "Remove `volatile=False`; replace with the `.detach()` it performs"
    ]
    assert dict(result.fixed) == {"GL001": 1}
    assert len(lints) == 2
    assert result.source == (
        "import torch\n\n\n"
        "def prepare(batch, device):\n"
        '    images = batch["image"].to(device).detach()\n'
        "    return images\n"
    )


def test_diff_keeps_the_round_a_fix_exposes():
    # GL002's fix of the wrapper is unsafe here (a loader's batch may be a leaf that
    # requires grad): GL001's safe fix removes only the flag, and with `--unsafe-fixes`
    # the next round's lint finds `Variable(batch)` and fixes it.
    source = (
        "import torch\n"
        "from torch.autograd import Variable\n\n\n"
        "def prepare(loader):\n"
        "    for batch in loader:\n"
        "        images = Variable(batch, volatile=False)\n"
        "        yield images\n"
    )
    safe = fix_source(source, "m.py", LintSettings(RULES), remaining=False)
    assert [f.fix.title for f in safe.original.findings if f.code == "GL001"] == ["Remove `volatile=False`"]
    assert dict(safe.fixed) == {"GL001": 1}
    assert "        images = Variable(batch)\n" in safe.source
    result = fix_source(source, "m.py", LintSettings(RULES), unsafe=True, remaining=False)
    assert dict(result.fixed) == {"GL001": 1, "GL002": 1}
    assert result.source == (
        "import torch\n\n\n"
        "def prepare(loader):\n"
        "    for batch in loader:\n"
        "        images = batch\n"
        "        yield images\n"
    )


@pytest.mark.parametrize(
    ("options", "code"),
    [((), 1), (("--statistics",), 1), (("--output-format", "json"), 1), (("--exit-zero",), 0), (("--exit-non-zero-on-fix",), 1)],
)
def test_diff_output_holds_no_finding(tmp_path, monkeypatch, options, code):
    # The rules left out of every lint of `--diff` (GL004 here, in both files; GL000 in
    # the file that does not parse) show nowhere: the diff, the count, the exit code.
    from click.testing import CliRunner

    from gradlint.cli import main

    (tmp_path / "m.py").write_text(MIXED, encoding="utf-8")
    (tmp_path / "n.py").write_text("import torch\n\n\ndef sample(z):\n    z.volatile = True\n", encoding="utf-8")
    (tmp_path / "o.py").write_text("import torch\nz.volatile = (\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--diff", *options, "m.py", "n.py", "o.py"])
    assert result.exit_code == code, result.output
    assert result.stdout == (
        "--- m.py\n+++ m.py\n@@ -1,7 +1,6 @@\n import torch\n-from torch.autograd import Variable\n \n \n"
        " def sample(decoder, z):\n     z.volatile = True\n-    return decoder(Variable(torch.zeros(3)))\n"
        "+    return decoder(torch.zeros(3))\n"
    )
    assert result.stderr == "Would fix 1 problem.\n"


def test_a_diff_lint_makes_only_the_findings_whose_fix_it_applies(monkeypatch):
    # The decorator GL001 would add is unsafe (the function returns the model's output),
    # and GL101's guard too: `--diff` without `--unsafe-fixes` makes neither finding, nor
    # renders the module for the positions they would have needed.
    from gradlint.semantic import tree

    source = (
        "import torch\n"
        "from torch.autograd import Variable\n\n\n"
        "def evaluate(model, images):\n"
        "    inputs = Variable(images, volatile=True)\n"
        "    return model(inputs)\n\n\n"
        "def score(model, batches):\n"
        "    model.eval()\n"
        "    outs = [model(b) for b in batches]\n"
        "    return outs\n"
    )
    rendered = []
    real = tree.positions
    monkeypatch.setattr(tree, "positions", lambda *a, **k: rendered.append(1) or real(*a, **k))
    full = fix_source(source, "m.py", LintSettings(RULES), remaining=True)
    assert [(f.code, f.start, f.fix.applicability) for f in full.original.findings] == [("GL001", (6, 13), "unsafe")]
    assert rendered
    rendered.clear()
    diff = fix_source(source, "m.py", LintSettings(RULES), remaining=False)
    assert diff.original.findings == [] and diff.source == source
    assert rendered == []
    unsafe = fix_source(source, "m.py", LintSettings(RULES), unsafe=True, remaining=False)
    assert [(f.code, f.start) for f in unsafe.original.findings] == [("GL001", (6, 13))]


def test_gl101_names_the_line_of_the_eval_only_in_the_findings_it_keeps(monkeypatch):
    # Its findings here have unsafe fixes: the message naming the `eval()`'s line is made
    # for `check`, not for `--diff`, which renders nothing for positions.
    from gradlint.semantic import tree

    source = (FIXTURES / "GL101" / "train_val_loop.py").read_text(encoding="utf-8")
    full = fix_source(source, "train_val_loop.py", LintSettings(RULES))
    assert [(f.code, f.fix.applicability) for f in full.original.findings] == [("GL101", "unsafe")] * 2
    assert all(re.search(r"is in eval mode \(line \d+\)", f.message) for f in full.original.findings)
    rendered = []
    real = tree.positions
    monkeypatch.setattr(tree, "positions", lambda *a, **k: rendered.append(1) or real(*a, **k))
    diff = fix_source(source, "train_val_loop.py", LintSettings(RULES), remaining=False)
    assert (diff.original.findings, rendered) == ([], [])



EVAL_LOOP = (
    "import torch\n"
    "from torch import nn\n\n"
    "encoder = nn.LSTM(4, 4)\n\n\n"
    "def score(model, loader):\n"
    "    model.eval()\n"
    "    total = 0\n"
    "    for x in loader:\n"
    "        total += model(x).sum().item()\n"
    "    print(total)\n"
)


def test_gl101_looks_for_nothing_in_a_diff_where_every_guard_it_adds_is_unsafe(monkeypatch):
    # `nn.LSTM` computes other numbers under a guard in eval mode: every GL101 fix of the
    # file is unsafe, so `--diff` without `--unsafe-fixes` has none of its findings to make.
    from gradlint.rules import gl101_eval_without_no_grad as gl101

    checked = []
    real = gl101.EvalWithoutNoGrad._check_scope
    monkeypatch.setattr(gl101.EvalWithoutNoGrad, "_check_scope", lambda self, scope: checked.append(scope) or real(self, scope))
    full = fix_source(EVAL_LOOP, "m.py", LintSettings(RULES))
    assert [(f.code, f.start, f.fix.applicability) for f in full.original.findings] == [("GL101", (11, 17), "unsafe")]
    assert checked
    checked.clear()
    diff = fix_source(EVAL_LOOP, "m.py", LintSettings(RULES), remaining=False)
    assert (diff.original.findings, diff.source, checked) == ([], EVAL_LOOP, [])
    # Without the LSTM the guard is safe, and `--diff` adds it.
    plain = EVAL_LOOP.replace("encoder = nn.LSTM(4, 4)\n\n\n", "\n")
    diff = fix_source(plain, "m.py", LintSettings(RULES), remaining=False)
    assert checked and [f.code for f in diff.original.findings] == ["GL101"] and "@torch.no_grad()\ndef score" in diff.source
