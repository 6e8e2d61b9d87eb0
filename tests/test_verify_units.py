"""gradlint verify without running anything: options, the claim schema, line
mapping, receivers and result comparison."""

from __future__ import annotations

import subprocess
import sys

import libcst as cst
import pytest
from click.testing import CliRunner

from gradlint import catalog
from gradlint.catalog import CatalogError, parse_claim
from gradlint.cli import main
from gradlint.verify import command, compare
from gradlint.verify.plan import LineMap, SourceIndex, receiver_of


def run_cli(*args):
    return CliRunner().invoke(main, list(args))


# -- the command line ----------------------------------------------------------------


def test_without_torch_verify_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(command, "torch_available", lambda: False)
    result = run_cli("verify", "--probes")
    assert result.exit_code == 2
    # `output` holds stderr with every click version (8.1 mixes it in, 8.2 also keeps it apart).
    assert result.output == (
        "error: `gradlint verify` runs code under torch, which is not installed: pip install torch numpy (in a clone of gradlint: pip install '.[verify]')\n"
    )


@pytest.mark.parametrize(
    "args,message",
    [
        ((), "nothing to verify: name the files to run, or use --probes"),
        (("--probes", "x.py"), "give either --probes or files to run, not both"),
        (("missing.py",), "missing.py: No such file or directory"),
        ((".",), ".: is a directory; verify runs only files named one by one"),
        (("--probes", "--memory-limit", "lots"), "--memory-limit: 'lots' is not a size such as 4GiB or 512MiB"),
        (("--probes", "--timeout", "0"), "--timeout must be a positive number of seconds"),
        (("--probes", "--select", "GL999"), "unknown rule code or prefix 'GL999'"),
        (("--probes", "--select", "GL000"), "no selected rule has a probe"),
    ],
)
def test_usage_errors_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run_cli("verify", *args)
    assert result.exit_code == 2
    assert result.output == f"error: {message}\n"


@pytest.mark.parametrize(
    "text,size", [("4GiB", 4 << 30), ("512MiB", 512 << 20), ("512M", 512 << 20), ("1.5G", 3 << 29), ("1000", 1000), ("0", None), ("none", None)]
)
def test_memory_limit_sizes(text, size):
    assert command.parse_size(text) == size


def test_verify_imports_no_torch_into_the_gradlint_process():
    # The probe runs in a subprocess; the gradlint process itself stays torch-free.
    pytest.importorskip("torch")
    code = (
        "import sys\n"
        "from gradlint.cli import main\n"
        "try:\n"
        "    main(['verify', '--probes', '--select', 'GL003'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "sys.exit(1 if 'torch' in sys.modules else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("GL003  CONFIRMED  ")


# -- the [[verify]] schema -------------------------------------------------------------


def test_every_rule_states_its_runtime_claims():
    # A file with GL000 or GL005 does not compile: there is no run as written to make
    # claims about; the directive codes are about comments, which never run.
    exempt = {"GL000", "GL005", *catalog.DIRECTIVE_CODES}
    missing = [code for code, doc in catalog.load().items() if code not in exempt and not doc.verify]
    assert not missing, f"add [[verify]] claims (rules/README.md) to {missing}"


@pytest.mark.parametrize(
    "raw,error",
    [
        ({"claim": "explodes"}, "'claim' must be one of records-graph, "),
        ({"claim": "raises"}, "a 'raises' claim needs 'exception'"),
        ({"claim": "warns", "match": "x", "region": "loop"}, "unknown key 'region' for a 'warns' claim"),
        ({"claim": "records-graph", "region": "everywhere"}, "'region' must be one of statement, rest-of-scope, loop"),
        ({"claim": "raises", "exception": "IndexError", "match": "("}, "'match' is not a regular expression"),
        ({"claim": "raises", "exception": "not a name"}, "'exception' must name exception classes"),
        ({"claim": "detaches", "after_fix": "maybe"}, "'after_fix' must be one of gone, kept"),
        ({"claim": "warns", "match": 3}, "'match' has the wrong type"),
    ],
)
def test_malformed_claims_are_rejected(raw, error):
    with pytest.raises(CatalogError, match="^GL999: verify\\[0\\]: " + error.replace("(", r"\(").replace("[", r"\[")):
        parse_claim("GL999: verify[0]", raw)


def test_every_claim_kind_has_a_judge():
    from gradlint.verify import claims

    assert set(claims.JUDGES) == set(catalog.CLAIM_KINDS)


def test_claim_defaults():
    c = parse_claim("x", {"claim": "retains-memory"})
    assert (c.region, c.after_fix) == ("loop", "gone")
    c = parse_claim("x", {"claim": "raises", "exception": ["TypeError", "AttributeError"], "where": "later"})
    assert (c.exceptions, c.where, c.after_fix) == (("TypeError", "AttributeError"), "later", "gone")
    assert parse_claim("x", {"claim": "detaches"}).after_fix == "kept"


# -- where things are measured ---------------------------------------------------------------


def test_line_map_follows_wraps_decorators_and_removed_lines():
    old = "import torch\nfrom torch.autograd import Variable\n\ndef f(m, xs):\n    for x in xs:\n        y = m(x)\n    return y\n"
    new = "import torch\n\n@torch.no_grad()\ndef f(m, xs):\n    with torch.no_grad():\n        for x in xs:\n            y = m(x)\n    return y\n"
    lm = LineMap(old, new)
    assert [lm.line(n) for n in range(1, 8)] == [1, 2, 2, 4, 6, 7, 8]


def test_units_regions_and_loops():
    source = (
        "import torch\n"  # 1
        "\n"
        "@torch.no_grad()\n"  # 3
        "def evaluate(model, batches):\n"  # 4
        "    total = 0\n"  # 5
        "    for x, y in batches:\n"  # 6
        "        out = model(\n"  # 7
        "            x)\n"  # 8
        "        total += out.sum()\n"  # 9
        "    return total\n"  # 10
    )
    index = SourceIndex(source)
    unit = index.unit_at(8)
    assert (unit.start, unit.end, unit.names, unit.reads) == (7, 8, ["out"], ["model", "x"])
    assert index.loop_of(unit) == (6, 9) and index.count_line((6, 9)) == 7
    assert index.scope_end(unit) == 10
    assert unit.function.name == "evaluate" and (unit.function.first, unit.function.def_line) == (3, 4)
    header = index.unit_at(6)
    assert (header.start, header.end, header.names) == (6, 6, ["x", "y"])
    assert index.unit_at(10).returns


@pytest.mark.parametrize(
    "code,receiver",
    [
        ("p.data.add_(-lr, p.grad.data)", "p"),
        ("p.grad.data.zero_()", "p.grad"),
        ("model.requires_grad = False", "model"),
        ("self.backbone.require_grad = False", "self.backbone"),
        ("y.detach().add_(1)", "y"),
        ("p.data -= lr * g", "p"),
        ("p.data[0] = 1", "p"),
        ("f(x).add_(1)", None),
    ],
)
def test_receivers(code, receiver):
    small = cst.parse_statement(code).body[0]
    node = small.value if isinstance(small, cst.Expr) else small
    assert receiver_of(node) == receiver


# -- same result? -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b,same",
    [
        ("loss 0.1235", "loss 0.1234", True),  # one unit in the last printed digit
        ("loss 0.1235", "loss 0.1233", False),
        ("tensor([1.5000, 2.0000], grad_fn=<AddmmBackward0>)", "tensor([1.5000, 2.0000])", True),
        ("tensor(0.5000, requires_grad=True)", "tensor(0.5000)", True),
        ("acc 97/100", "acc 96/100", False),
        ("1.0e-05", "1.1e-05", True),
        ("step 1", "epoch 1", False),
    ],
)
def test_printed_lines_match_within_a_printed_digit(a, b, same):
    assert compare.lines_match(a, b) is same


def test_output_comparison_and_prefix():
    assert compare.compare_output("a 1\nb 2\n", "a 1\nb 2\n") is None
    assert compare.compare_output("a 1\nb 2\n", "a 1\nb 3\n") == "output line 2: 'b 2' as written, 'b 3' as fixed"
    assert compare.compare_output("a 1\n", "a 1\nb 2\n") == "output line 2: missing as written, 'b 2' as fixed"
    # An original cut short by its exception is compared as far as it went.
    assert compare.compare_output("a 1\nb", "a 1\nb 2\nc 3\n", prefix=True) is None


def _t(values, shape=None):
    return {
        "type": "tensor",
        "shape": shape or [len(values)],
        "dtype": "float32",
        "sum": sum(values),
        "abs_sum": sum(abs(v) for v in values),
        "head": values,
    }


def test_value_comparison():
    assert compare.compare_values(_t([1.0, 2.0]), _t([1.0, 2.0000001]), "x") is None
    assert compare.compare_values(_t([1.0, 2.0]), _t([1.0, 2.5]), "x") == "x: sum 3 as written, 3.5 as fixed"
    assert compare.compare_values(_t([1.0, 2.0]), _t([1.0, 2.0], [2, 1]), "x") == "x: float32[2] as written, float32[2, 1] as fixed"
    # `total += loss` -> `total += loss.item()`: a 0-dim tensor becomes a float.
    assert compare.compare_values(_t([0.25], []), {"type": "number", "value": 0.25}, "total") is None
    assert compare.compare_values(_t([0.25], []), {"type": "number", "value": 0.5}, "total") == "total: 0.25 as written, 0.5 as fixed"
    seq = {"type": "seq", "length": 2, "items": [_t([1.0]), _t([2.0])]}
    assert compare.compare_values(seq, {**seq, "length": 3}, "xs") == "xs: 2 items as written, 3 as fixed"


def test_files_verify_cannot_run_get_a_one_line_error(tmp_path):
    from gradlint.config import Settings
    from gradlint.verify import report
    from gradlint.verify.scripts import Options, verify_files

    (tmp_path / "nb.ipynb").write_text("{}")
    (tmp_path / "broken.py").write_text("from torch.autograd import Variable\nprint Variable(x)\n")
    (tmp_path / "clean.py").write_text("import torch\n")
    paths = [tmp_path / "nb.ipynb", tmp_path / "broken.py", tmp_path / "clean.py"]
    results = verify_files(paths, Settings(cwd=tmp_path), Options())
    assert results[0].error == "verify runs Python files: export the notebook first (jupyter nbconvert --to script)"
    # (CPython's own wording varies between versions.)
    assert results[1].error.startswith("cannot run it: syntax error: ")
    assert results[1].error.endswith("(line 2)") and results[2].error is None
    assert not results[0].ok and not results[1].ok and results[2].ok
    text = report.files_text(results)
    assert text.endswith("  no findings: nothing to verify\n\n3 files, 0 findings; 2 files not run.\n")


def test_files_verify_runs_a_file_with_async_arguments_renamed(tmp_path):
    from gradlint.config import Settings
    from gradlint.verify import report
    from gradlint.verify.scripts import Options, judge_file, prepare

    source = "import torch\nx = torch.zeros(2)\ny = x.cuda(async=True)\nz = x.sum().data[0]\nw = x.cuda(async=True)\n"
    (tmp_path / "legacy.py").write_text(source)
    item = prepare(tmp_path / "legacy.py", Settings(cwd=tmp_path), Options())
    # Analysed as `gradlint check` analyses it: every finding, at its place in the file as written.
    assert [(f.code, f.start) for f in item.findings] == [("GL005", (3, 11)), ("GL003", (4, 4)), ("GL005", (5, 11))]
    assert item.source == source.replace("async=", "non_blocking=")
    assert "non_blocking=True" in item.fixed_source and "x.sum().item()" in item.fixed_source
    assert item.note == (
        "as written it does not compile (`async` is a keyword since Python 3.7): run with its "
        "2 `async=` arguments renamed `non_blocking=` (GL005's fix)"
    )
    raised = {"kind": "exception", "types": ["IndexError", "LookupError", "Exception"], "message": "invalid index", "line": 4}
    fv = judge_file(item, _run({4: {"entered": 1}}, end=raised), _run({4: {"entered": 1}}), Options())
    rename, index, again = fv.findings
    assert (rename.verdict, rename.fix.verdict) == ("CONFIRMED", "ERROR GONE")
    assert rename.observed == [f"as written: SyntaxError at line 3 on Python {sys.version_info[0]}.{sys.version_info[1]}"]
    # Each argument is a syntax error of its own, though compiling stops at the first.
    assert (again.verdict, again.fix.verdict) == ("CONFIRMED", "ERROR GONE")
    assert again.observed == [f"as written: SyntaxError at line 5 on Python {sys.version_info[0]}.{sys.version_info[1]}"]
    assert (index.verdict, index.fix.verdict) == ("CONFIRMED", "ERROR GONE")
    assert report.file_text(fv).splitlines()[1] == "  " + item.note


def test_results_key_of_claims():
    assert parse_claim("x", {"claim": "records-graph"}).results == "same"
    c = parse_claim("x", {"claim": "requires-grad-unchanged", "results": "may-change"})
    assert (c.after_fix, c.results) == ("gone", "may-change")
    assert c.describe().endswith("; the fix makes this go away, which changes the results on purpose")
    with pytest.raises(CatalogError, match="^x: 'results' must be one of same, may-change$"):
        parse_claim("x", {"claim": "detaches", "results": "different"})
    with pytest.raises(CatalogError, match="^x: results = 'may-change' needs after_fix = 'gone'$"):
        parse_claim("x", {"claim": "detaches", "results": "may-change"})


# -- where findings are measured: receivers and the fixed file's lines ------------------------


@pytest.mark.parametrize(
    "code,source,receiver",
    [
        # GL202 and GL204 report the whole statement line; GL302 and GL303 the assignment's target.
        ("GL202", "import torch\n\n\ndef step(model: torch.nn.Module, x):\n    h = torch.sigmoid(model(x))\n    h.data.mul_(0.5)\n    h.sum().backward()\n", "h"),
        ("GL204", "import torch\n\n\ndef step(p, lr):\n    p.data.add_(-lr, p.grad.data)\n", "p"),
        ("GL204", "import torch\n\n\ndef step(p):\n    p.grad.data.zero_()\n", "p.grad"),
        ("GL302", "import torch.nn as nn\n\nnet = nn.Linear(2, 2)\nnet.requires_grad = False\n", "net"),
        ("GL303", "import torch\n\nw = torch.ones(2)\nw.require_grad = True\n", "w"),
    ],
)
def test_receivers_of_real_findings(code, source, receiver):
    from gradlint.engine import LintSettings, lint_source

    (finding,) = lint_source(source, "x.py", LintSettings(frozenset({code}), {})).findings
    index = SourceIndex(source)
    node = index.node_at(finding.start, finding.end)
    assert node is not None and receiver_of(node) == receiver


def test_node_at_is_the_innermost_node_of_the_span():
    index = SourceIndex("p.grad.data.zero_()\n")
    # The line, its expression statement and the call all span 1:0-1:19.
    assert isinstance(index.node_at((1, 0), (1, 19)), cst.Call)
    assert isinstance(index.node_at((1, 0), (1, 6)), cst.Attribute)
    assert index.node_at((1, 0), (1, 5)) is None


def test_line_map_sends_a_rewritten_statement_to_its_rewrite():
    # GL202's fix puts two statements into a new `with` block: each maps to
    # its own rewrite, not to the `with` line that took the block's place.
    old = "for p in ps:\n    p.data.add_(-lr, p.grad.data)\n    p.grad.data.zero_()\nprint(1)\n"
    new = "for p in ps:\n    with torch.no_grad():\n        p.add_(p.grad, alpha=-lr)\n        p.grad.zero_()\nprint(1)\n"
    lm = LineMap(old, new)
    assert [lm.line(n) for n in range(1, 5)] == [1, 3, 4, 5]


# -- fix verdicts, judged on measurements made up for the purpose ----------------------------------


def _run(payload_statements, stdout="", end=None):
    from gradlint.verify.runs import RunView
    from gradlint.verify.sandbox import RunOutcome

    payload = {
        "statements": {str(line): st for line, st in payload_statements.items()},
        "outcome": end or {"kind": "completed"},
        "globals": {},
        "warnings": [],
        "exceptions": [end] if end and end.get("kind") == "exception" else [],
        "regions": {},
    }
    return RunView(RunOutcome("finished", payload, 0, stdout, len(stdout), "", 1.0))


def _judge(tmp_path, source, original, fixed, unsafe=False):
    from gradlint.config import Settings
    from gradlint.verify.scripts import Options, judge_file, prepare

    path = tmp_path / "f.py"
    path.write_text(source)
    if source is EVAL:  # GL101 runs only in the preview tier
        (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\npreview = true\n")
    item = prepare(path, Settings(cwd=tmp_path), Options(unsafe_fixes=unsafe))
    return judge_file(item, original, fixed, Options(unsafe_fixes=unsafe)).findings


FREEZE = "import torch.nn as nn\n\nmodel = nn.Linear(2, 2)\nmodel.requires_grad = False\nprint(model(x).sum())\n"


def _judge_freeze(tmp_path, source, original, fixed):
    # GL302's `= False` really freezes: an unsafe fix, verified with --unsafe-fixes
    return _judge(tmp_path, source, original, fixed, unsafe=True)


def _module(before, after):
    return {"entered": 1, "receiver": {"before": {"kind": "module", "trainable": before, "parameters": 2}, "after": {"kind": "module", "trainable": after, "parameters": 2}}}


def test_a_fix_that_changes_results_on_purpose_is_an_intended_change(tmp_path):
    (finding,) = _judge_freeze(tmp_path, FREEZE, _run({4: _module(2, 2)}, "tensor(0.5000)\n"), _run({4: _module(2, 0)}, "tensor(0.7000)\n"))
    assert (finding.code, finding.verdict) == ("GL302", "CONFIRMED")
    assert finding.observed == ["`model`: 2 → 2 of 2 parameters require grad across line 4"]
    assert finding.fix.verdict == "INTENDED CHANGE" and finding.ok
    assert finding.fix.details == [
        "as fixed: `model`: 2 → 0 of 2 parameters require grad across line 4",
        "output line 1: 'tensor(0.5000)' as written, 'tensor(0.7000)' as fixed",
    ]
    # The same results: nothing to excuse.
    (finding,) = _judge_freeze(tmp_path, FREEZE, _run({4: _module(2, 2)}, "1\n"), _run({4: _module(2, 0)}, "1\n"))
    assert finding.fix.verdict == "SAME RESULT"


def test_an_intended_change_never_excuses_a_failing_run_or_an_unconfirmed_finding(tmp_path):
    failed = {"kind": "exception", "types": ["RuntimeError", "Exception"], "message": "element 0 of tensors does not require grad", "line": 5}
    (finding,) = _judge_freeze(tmp_path, FREEZE, _run({4: _module(2, 2)}, "1\n"), _run({4: _module(2, 0)}, "", failed))
    assert finding.fix.verdict == "CHANGED" and not finding.ok
    assert finding.fix.details[0] == (
        "as written it completed; as fixed it raised RuntimeError: element 0 of tensors does not require grad at line 5"
    )
    # As written the statement froze the parameters after all: the rule was
    # wrong here, so the difference the fix makes is not the one it promised.
    (finding,) = _judge_freeze(tmp_path, FREEZE, _run({4: _module(2, 0)}, "1\n"), _run({4: _module(2, 0)}, "2\n"))
    assert (finding.verdict, finding.fix.verdict) == ("NOT REPRODUCED", "CHANGED")


NESTED = (
    "import torch\n\n\n@torch.no_grad()\ndef f(x):\n    with torch.no_grad():\n        y = x * 2\n    return y\n\n\nprint(f(torch.ones(2)))\n"
)


def test_a_behaviour_the_fix_keeps_must_still_show_as_fixed(tmp_path):
    # GL106: the inner guard's body (line 7; line 6 of the fixed copy) must still run with gradients off.
    off = {6: {"entered": 1, "grad_disabled_entries": 1}}
    (finding,) = _judge(tmp_path, NESTED, _run(off, "ok\n"), _run(off, "ok\n"))
    assert (finding.code, finding.verdict, finding.fix.verdict) == ("GL106", "CONFIRMED", "SAME RESULT")
    (finding,) = _judge(tmp_path, NESTED, _run(off, "ok\n"), _run({6: {"entered": 1, "grad_disabled_entries": 0}}, "ok\n"))
    assert finding.fix.verdict == "CHANGED"
    # The fixed copy's line 6 is line 7 of the file as written (the inner `with` is gone).
    assert finding.fix.details == ["as fixed, no longer: gradients disabled when line 7 started: 0 of 1 times"]


def test_unsafe_fixes_are_applied_only_when_asked(tmp_path):
    from gradlint.config import Settings
    from gradlint.verify.scripts import Options, prepare

    source = "import torch\nimport torch.nn as nn\n\nencoder = nn.Linear(4, 4)\nh = encoder(torch.ones(2, 4))\nh.detach().zero_()\nprint(h.sum())\n"
    path = tmp_path / "f.py"
    path.write_text(source)
    safe = prepare(path, Settings(cwd=tmp_path), Options())
    assert [f.code for f in safe.findings] == ["GL201"] and safe.applied == [False] and safe.fixed_watches is None
    unsafe = prepare(path, Settings(cwd=tmp_path), Options(unsafe_fixes=True))
    assert unsafe.applied == [True] and "h.detach().clone().zero_()" in unsafe.fixed_source
    (finding,) = _judge(tmp_path, source, _run({6: {"entered": 1}}), None)
    assert finding.fix.note == "unsafe fix, not applied: add --unsafe-fixes to verify it" and finding.fix.verdict is None


# -- reporting as it goes ---------------------------------------------------------------


def test_run_all_hands_each_outcome_over_in_order_as_soon_as_it_is_ready():
    import threading
    import time

    from gradlint.verify import sandbox

    release = threading.Event()
    seen = []

    def job(i, wait=None):
        def run():
            if wait is not None:
                assert wait.wait(5)
            return sandbox.RunOutcome("finished", {"i": i}, 0, "", 0, "", 0.0)
        return run

    def done(index, outcome):
        seen.append((index, outcome.payload["i"]))
        if index == 0:
            release.set()  # job 2 may finish only once job 0 has been handed over

    start = time.monotonic()
    outcomes = sandbox.run_all([job(0), job(1), job(2, release)], workers=3, on_done=done)
    assert [o.payload["i"] for o in outcomes] == [0, 1, 2]
    assert seen == [(0, 0), (1, 1), (2, 2)]
    assert time.monotonic() - start < 5


def _fake_probe_runs(monkeypatch):
    """sandbox.run replaced by a probe that confirms at once; returns the count of runs made."""
    from gradlint.verify import sandbox

    runs = []

    def fake_run(config, files, limits, encoding="utf-8"):
        runs.append(config["name"])
        payload = {"torch": "2.13.0", "observed": [["x", "1"]], "confirms": [[True, "it holds"]]}
        return sandbox.RunOutcome("finished", payload, 0, "", 0, "", 0.5)

    monkeypatch.setattr(sandbox, "run", fake_run)
    return runs


def test_verify_probes_prints_each_probe_as_it_finishes(monkeypatch):
    from gradlint.verify import command

    runs = _fake_probe_runs(monkeypatch)
    printed = []  # (text, how many probes had run when it was printed)
    code = command.run(
        files=(), probes=True, select=["GL001", "GL002", "GL003"], unsafe_fixes=False, timeout=60.0,
        memory_limit="0", seed=None, config_path=None, output_format="text", jobs=1,
        echo=lambda text: printed.append((text, len(runs))),
    )
    assert code == 0
    assert [n for _, n in printed] == [1, 2, 3, 3]
    assert [text.split("\n")[0][:16] for text, _ in printed[:3]] == ["GL001  CONFIRMED", "GL002  CONFIRMED", "GL003  CONFIRMED"]
    assert printed[3][0] == "3 probes on torch 2.13.0: 3 confirmed (1.5 s of runs).\n"
    # The same text as printing it all at the end, and JSON is still one document.
    from gradlint.verify import report
    from gradlint.verify.probes import ProbeResult

    joined = "".join(text for text, _ in printed)
    assert joined.startswith("GL001  CONFIRMED  ") and joined.count("    holds: it holds\n") == 3
    assert report.probes_text([ProbeResult("GL001", "n", "c", "CONFIRMED", [("x", "1")], [(True, "it holds")], seconds=0.5, torch="2.13.0")]) == (
        "GL001  CONFIRMED  c\n    x = 1\n    holds: it holds\n1 probe on torch 2.13.0: 1 confirmed (0.5 s of runs).\n"
    )
    printed.clear()
    command.run(
        files=(), probes=True, select=["GL001", "GL002"], unsafe_fixes=False, timeout=60.0, memory_limit="0",
        seed=None, config_path=None, output_format="json", jobs=1, echo=lambda text: printed.append((text, len(runs))),
    )
    assert len(printed) == 1 and printed[0][0].startswith("{")


def test_verify_files_prints_each_file_as_it_finishes(monkeypatch, tmp_path):
    from gradlint.verify import command

    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("import torch\nx = torch.ones(2)\n")
    (tmp_path / "broken.py").write_text("from torch.autograd import Variable\nprint Variable(x)\n")
    monkeypatch.chdir(tmp_path)
    printed = []
    code = command.run(
        files=("a.py", "broken.py", "b.py", "c.py"), probes=False, select=None, unsafe_fixes=False, timeout=60.0,
        memory_limit="0", seed=None, config_path=None, output_format="text", jobs=1, echo=printed.append,
    )
    assert code == 1  # broken.py was not run
    assert printed[:4] == [
        "a.py\n  no findings: nothing to verify\n",
        printed[1],
        "b.py\n  no findings: nothing to verify\n",
        "c.py\n  no findings: nothing to verify\n",
    ]
    assert printed[1].startswith("broken.py\n  error: cannot run it: syntax error: ")
    assert printed[4] == "\n4 files, 0 findings; 1 file not run.\n"


def test_verify_files_prints_each_file_once_its_runs_are_done(monkeypatch, tmp_path):
    from gradlint.verify import command, sandbox

    runs = []

    def fake_run(config, files, limits, encoding="utf-8"):
        runs.append(config["script"])
        payload = {"statements": {}, "outcome": {"kind": "completed"}, "globals": {}, "warnings": [], "exceptions": [], "regions": {}}
        return sandbox.RunOutcome("finished", payload, 0, "", 0, "", 0.1)

    monkeypatch.setattr(sandbox, "run", fake_run)
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("import torch\n\n\ndef f(loss):\n    return loss.sum().data[0]\n")
    monkeypatch.chdir(tmp_path)
    printed = []
    command.run(
        files=("a.py", "b.py", "c.py"), probes=False, select=None, unsafe_fixes=False, timeout=60.0,
        memory_limit="0", seed=None, config_path=None, output_format="text", jobs=1,
        echo=lambda text: printed.append((text.split("\n")[0], len(runs))),
    )
    # as written and as fixed for each file, then its report, before the next file runs
    assert runs == ["a.py", "a.py", "b.py", "b.py", "c.py", "c.py"]
    assert printed[:3] == [("a.py", 2), ("b.py", 4), ("c.py", 6)]
    assert printed[3][0] == "" and printed[3][1] == 6


def test_a_difference_from_reading_back_the_rewritten_attribute_is_no_intended_change(tmp_path):
    source = FREEZE + "print(getattr(model, 'requires_grad', 'unset'))\n"
    (finding,) = _judge_freeze(tmp_path, source, _run({4: _module(2, 2)}, "1\nFalse\n"), _run({4: _module(2, 0)}, "1\nunset\n"))
    assert finding.fix.verdict == "CHANGED"
    assert finding.fix.details[0] == "output line 2: 'False' as written, 'unset' as fixed"


BARE = "import torch\n\n\nwith torch.no_grad:\n    y = torch.ones(2) * 2\nprint(y)\n"


def test_a_new_exception_at_the_flagged_line_is_a_change_not_a_missing_fix(tmp_path):
    raised = {"kind": "exception", "types": ["TypeError", "Exception"], "message": "'type' object does not support the context manager protocol", "line": 4}
    other = {"kind": "exception", "types": ["TypeError", "Exception"], "message": "'NoneType' object does not support the context manager protocol", "line": 4}
    entered = {4: {"entered": 1}}
    (finding,) = _judge(tmp_path, BARE, _run(entered, "", raised), _run(entered, "", other))
    assert (finding.code, finding.verdict) == ("GL102", "CONFIRMED")
    assert finding.fix.verdict == "CHANGED"
    assert finding.fix.details == [
        "as fixed, raises a new error: TypeError: 'NoneType' object does not support the context manager protocol (line 4)"
    ]
    # the very error the finding is about, still raised: the fix did not fix it
    (finding,) = _judge(tmp_path, BARE, _run(entered, "", raised), _run(entered, "", raised))
    assert finding.fix.verdict == "NOT FIXED"


def test_a_fix_applied_whose_finding_comes_back_is_judged_on_its_runs(tmp_path):
    from gradlint.config import Settings
    from gradlint.verify.scripts import Options, prepare

    # `torch` is a class attribute here: the rule offers no fix, so nothing is applied
    source = (
        "import torch\nfrom torch.autograd import Variable\n\n\nclass A:\n    torch = 'cpu'\n\n"
        "    def f(self, m, x):\n        print(m(Variable(x, volatile=True)).sum().item())\n"
    )
    path = tmp_path / "f.py"
    path.write_text(source)
    item = prepare(path, Settings(cwd=tmp_path), Options(unsafe_fixes=True))
    assert [f.code for f in item.findings] == ["GL001"] and item.findings[0].fix is None
    assert item.fixed_source == source and item.reapplied == set()


def test_a_kept_graph_is_confirmed_by_the_nodes_the_accumulator_references():
    from gradlint.catalog import Claim
    from gradlint.verify import claims
    from gradlint.verify.plan import SitePlan
    from gradlint.verify.runs import RunView
    from gradlint.verify.sandbox import RunOutcome

    def run(first, last, entered=6):
        payload = {
            "regions": {"r1": {"exits": 1, "kept_max": 0, "iterations": entered}},
            "statements": {
                "15": {
                    "entered": entered,
                    "receiver": {"before": None, "after": {"kind": "other", "graph_nodes": first}},
                    "receiver_last": {"after": {"kind": "other", "graph_nodes": last}, "entered": entered},
                }
            },
        }
        return RunView(RunOutcome("finished", payload, 0, "", 0, "", 1.0))

    plan = SitePlan(15, (15, 15), regions={"loop": "r1"}, receiver="running")
    claim = Claim("retains-memory", region="loop")
    # backward() in the loop freed the activations (0 B), but the total's graph grows
    obs = claims.retains_memory(claim, run(7, 32), plan)
    assert obs.shown and obs.text == (
        "saved by earlier iterations and still alive after the loop: 0 B (6 iterations); "
        "autograd nodes reachable from `running`: 7 after its first update, 32 after its last (+5.0 per iteration)"
    )
    # after `.detach()`: nothing referenced, nothing grows
    assert not claims.retains_memory(claim, run(0, 0), plan).shown


# -- verify vouches only for what ran ------------------------------------------------------

EVAL = (
    "import torch\n"
    "\n"
    "\n"
    "def evaluate(model, batches):\n"
    "    model.eval()\n"
    "    outs = []\n"
    "    for x in batches:\n"
    "        out = model(x)\n"
    "        outs.append(out.sum().item())\n"
    "    return outs\n"
)


def test_a_fix_on_a_line_that_never_ran_is_not_exercised(tmp_path):
    from gradlint.verify import report
    from gradlint.verify.scripts import FileVerification

    (finding,) = _judge(tmp_path, EVAL, _run({}), _run({}))
    assert (finding.code, finding.verdict, finding.fix.verdict) == ("GL101", "NOT REACHED", "NOT EXERCISED")
    assert finding.fix.details == ["line 8 never ran as written: nothing to compare"]
    assert finding.observed == [
        "line 8 never ran: `evaluate()` is never called",
        "to run it: pass --driver driver.py that imports `f` and calls `evaluate(...)` with arguments",
    ]
    assert not finding.ok
    fv = FileVerification("f.py", findings=[finding])
    assert report.files_summary([fv]) == "\n1 file, 1 finding: 1 not reached; 1 fix: 1 not exercised.\n"
    # Ran as written, never as fixed, and the two runs ended alike: nothing vouches for the fix either.
    ran = {8: {"entered": 1}, 9: {"entered": 1}}
    (finding,) = _judge(tmp_path, EVAL, _run(ran), _run({}))
    assert finding.fix.verdict == "NOT EXERCISED"
    assert finding.fix.details == ["line 8 never ran as fixed: nothing to compare"]
    # ... but a fixed run that stops before the line is a change.
    # (the fixed copy's line 5 is the `def`, line 4 as written: the fix adds a decorator)
    failed = {"kind": "exception", "types": ["NameError", "Exception"], "message": "name 'x' is not defined", "line": 5}
    (finding,) = _judge(tmp_path, EVAL, _run(ran), _run({}, end=failed))
    assert finding.fix.verdict == "CHANGED"
    assert finding.fix.details == ["line 8 never ran as fixed (as fixed it raised NameError: name 'x' is not defined at line 4)"]
    # Ran in both: judged on the results.
    (finding,) = _judge(tmp_path, EVAL, _run(ran), _run({9: {"entered": 1}}))
    assert finding.fix.verdict == "SAME RESULT"


def test_differences_are_numbered_as_in_the_file_as_written(tmp_path):
    # The fix decorates `evaluate` with `@torch.no_grad()`: line 8 becomes line 9 of the fixed copy.
    def seen(total):
        return {"entered": 1, "first": {"out": {"type": "number", "value": total}}}

    (finding,) = _judge(tmp_path, EVAL, _run({8: seen(1.0)}), _run({9: seen(2.0)}))
    assert finding.fix.verdict == "CHANGED"
    assert finding.fix.details[0] == "at line 8: out: 1.0 as written, 2.0 as fixed"


GL003_SOURCE = "import torch\n\nloss = torch.ones(3).sum()\nprint(loss.data[0])\n"


@pytest.mark.parametrize("message", ["invalid index of a 0-dim tensor", "too many indices for tensor of dimension 0"])
def test_an_exception_claim_at_the_flagged_line_is_matched_by_its_type(tmp_path, message):
    error = {"kind": "exception", "types": ["IndexError", "LookupError", "Exception"], "message": message, "line": 4}
    (finding,) = _judge(tmp_path, GL003_SOURCE, _run({4: {"entered": 1}}, end=error), _run({4: {"entered": 1}}, "3.0\n"))
    assert (finding.verdict, finding.fix.verdict) == ("CONFIRMED", "ERROR GONE")
    assert finding.observed == [f"raised IndexError: {message} (line 4)"]
    # The claimed type at another line is no evidence; another type at the line neither.
    for other in ({**error, "line": 3}, {**error, "types": ["TypeError", "Exception"]}):
        (finding,) = _judge(tmp_path, GL003_SOURCE, _run({4: {"entered": 1}}, end=other), _run({4: {"entered": 1}}, "3.0\n"))
        assert finding.verdict == "NOT REPRODUCED", other


def test_a_later_exception_claim_still_needs_its_wording():
    from gradlint.verify.claims import matching
    from gradlint.verify.plan import SitePlan

    claim = parse_claim("x", {"claim": "raises", "exception": "RuntimeError", "match": "inplace", "where": "later"})
    plan = SitePlan(3, (3, 3))
    run = _run({3: {"entered": 1, "first_seq": 1}})
    run.payload["exceptions"] = [
        {"types": ["RuntimeError"], "message": "CUDA error", "line": 5, "lines": [5], "seq": 2},
        {"types": ["RuntimeError"], "message": "modified by an inplace operation", "line": 6, "lines": [6], "seq": 3},
    ]
    assert [e["line"] for e in matching(claim, run, plan)] == [6]


# -- why a line did not run, and what would make it run --------------------------------------


def _explain(end, caller=None, path="proj/train.py", imported=False):
    from pathlib import Path

    from gradlint.verify import reach

    status = {"exception": "raised X", "exit": "exited with status 2", "completed": "completed"}[end.get("kind", "completed")]
    return reach.explain(12, end, status, caller, Path(path), ["train"], imported)


def _raised(types, message, line=3):
    return {"kind": "exception", "types": types + ["Exception"], "message": message, "line": line}


def test_why_a_line_did_not_run():
    from gradlint.verify.reach import Caller

    assert _explain(_raised(["FileNotFoundError", "OSError"], "[Errno 2] No such file or directory: 'data/x.csv'")) == (
        "the run stopped at line 3: the file reads data/x.csv, which is missing (verify runs it in an empty temporary directory)",
        "pass --driver driver.py that writes a small stand-in for it before it imports the file, or --entry a function that does not read it",
    )
    why, step = _explain(_raised(["AssertionError"], "Torch not compiled with CUDA enabled"))
    assert why == "the run stopped at line 3: it needs CUDA, which torch does not have here (Torch not compiled with CUDA enabled)"
    assert step.startswith("run verify on a machine where torch.cuda.is_available()")
    why, step = _explain(_raised(["RuntimeError"], "Found no NVIDIA driver on your system."))
    assert "needs CUDA" in why
    assert _explain({"kind": "completed"}, Caller("train", False, False, 0)) == (
        "`train()` is never called",
        "pass --entry train:train",
    )
    assert _explain({"kind": "completed"}, Caller("Trainer.fit", True, False, 0))[1] == (
        "pass --driver driver.py that imports `train`, builds a `Trainer` and calls `fit()`"
    )
    assert _explain({"kind": "completed"}, Caller("train", False, False, 2))[0] == (
        "`train()` ran 2 times but not through line 12 (a branch not taken, or it returned earlier)"
    )
    assert _explain({"kind": "completed"}) == ("line 12 is in a branch not taken", "pass --driver driver.py that takes that branch")
    assert _explain({"kind": "exit", "code": 2})[0] == "the file exited with status 2 before line 12 ran"


def test_why_an_import_failed_a_sibling_or_a_package_not_installed(tmp_path):
    (tmp_path / "proj" / "scripts").mkdir(parents=True)
    (tmp_path / "proj" / "utils.py").write_text("")
    path = str(tmp_path / "proj" / "scripts" / "train.py")
    why, step = _explain(_raised(["ModuleNotFoundError", "ImportError"], "No module named 'utils'"), path=path)
    assert why == f"the run stopped at line 3: `utils` is a module of the project ({tmp_path / 'proj' / 'utils.py'}), not on the path"
    assert step == f"run verify from {tmp_path / 'proj'} (the project root), so that `utils` imports"
    why, step = _explain(_raised(["ModuleNotFoundError", "ImportError"], "No module named 'visdom'"), path=path)
    assert (why, step) == (
        "the run stopped at line 3: `visdom` is not installed",
        "install visdom (pip install visdom, or the package that provides it)",
    )
    why, _ = _explain(_raised(["ModuleNotFoundError", "ImportError"], "No module named 'pytest.ffi'"), path=path)
    assert why == "the run stopped at line 3: `pytest.ffi` is not part of the installed `pytest` (it may have been removed)"


def test_import_paths_and_module_names(tmp_path):
    from gradlint.verify import reach

    root = tmp_path / "proj"
    (root / "src" / "pkg" / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    for d in ("pkg", "pkg/sub"):
        (root / "src" / d / "__init__.py").write_text("")
    path = root / "src" / "pkg" / "sub" / "model.py"
    path.write_text("")
    assert reach.module_names(path) == ["pkg.sub.model", "model"]
    assert reach.import_paths(path, cwd=str(tmp_path)) == [
        str(root / "src" / "pkg" / "sub"), str(root / "src"), str(root), str(tmp_path)
    ]
    assert reach.module_names(root / "src" / "pkg" / "__init__.py") == ["pkg"]


def test_entry_and_driver_options(tmp_path):
    from gradlint.verify import reach

    assert reach.parse_entry("pkg.train:main") == reach.Entry("pkg.train", "main")
    assert reach.parse_entry("scripts/run.py:Trainer.fit") == reach.Entry("scripts/run.py", "Trainer.fit")
    f = tmp_path / "f.py"
    f.write_text("import torch\n")
    for args, error in [
        (["--entry", "train"], "error: --entry: 'train' is not 'module:function' or 'path.py:function'"),
        (["--entry", "pkg/x:main"], "error: --entry: 'pkg/x:main' is not 'module:function' or 'path.py:function'"),
        (["--entry", "nowhere.py:main"], "error: --entry: nowhere.py: No such file"),
        (["--driver", "nowhere.py"], "error: --driver: nowhere.py: No such file"),
        (["--entry", "f:main", "--driver", str(f)], "error: give either --entry or --driver, not both"),
    ]:
        result = run_cli("verify", str(f), *args)
        assert (result.exit_code, result.output.strip().splitlines()[-1]) == (2, error), args
    result = run_cli("verify", "--probes", "--entry", "f:main")
    assert (result.exit_code, result.output.strip()) == (2, "error: --entry and --driver run files, not --probes")
    # An entry naming the file itself calls into the copy being run; another module is imported.
    assert reach.entry_config(reach.Entry(str(f), "main"), f, ["f"]) == {"module": "f", "function": "main", "path": None}
    assert reach.entry_config(reach.Entry("pkg.run", "main"), f, ["f"]) == {"module": "pkg.run", "function": "main", "path": None}


def test_what_the_fixed_copy_did_is_numbered_as_in_the_file_as_written(tmp_path):
    # An inserted line stands for the line after it; the lines after it move by one.
    lm = LineMap(EVAL, EVAL.replace("    for x in batches:\n", "    with torch.no_grad():\n    for x in batches:\n"))
    assert [lm.old_line(n) for n in range(1, 12)] == [1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10]
    ran = {8: {"entered": 1}}
    failed = {"kind": "exception", "types": ["ValueError", "Exception"], "message": "bad", "line": 10}
    findings = _judge(tmp_path, EVAL, _run(ran), _run({9: {"entered": 1}}, end=failed))
    (finding,) = findings
    assert finding.fix.verdict == "CHANGED"
    assert finding.fix.details[0] == "as written it completed; as fixed it raised ValueError: bad at line 9"


def test_a_data_file_that_exists_in_the_project_is_named_with_the_directory_to_run_from(tmp_path):
    (tmp_path / "proj" / "data").mkdir(parents=True)
    (tmp_path / "proj" / "scripts").mkdir()
    (tmp_path / "proj" / "data" / "x.csv").write_text("1,2\n")
    path = str(tmp_path / "proj" / "scripts" / "train.py")
    end = _raised(["FileNotFoundError", "OSError"], "[Errno 2] No such file or directory: 'data/x.csv'")
    root = str(tmp_path / "proj")
    assert _explain(end, path=path) == (
        f"the run stopped at line 3: the file reads data/x.csv, which is at {root}/data/x.csv, "
        "not in the empty temporary directory verify runs it in",
        f"pass --driver driver.py that calls os.chdir({root!r}) before it imports the file (what the run writes then lands there)",
    )
