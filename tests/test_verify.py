"""gradlint verify: the sandbox, the claim vocabulary, probes and file mode, run for real."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
import time
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from harness import FIXTURES, ROOT, run_verify, verified_lines, verified_path, verified_summary, verify_cases
from gradlint import catalog
from gradlint.catalog import parse_claim
from gradlint.cli import main
from gradlint.verify import claims, sandbox
from gradlint.verify.plan import SourceIndex, Watches, plan_site, receiver_of
from gradlint.verify.runs import RunView

if importlib.util.find_spec("torch") is None:  # not imported here: collecting the suite stays torch-free
    pytest.skip("verify runs torch programs: torch is not installed", allow_module_level=True)


@pytest.fixture
def torch():
    import torch

    return torch


CASES = Path(__file__).parent / "verify_cases"
_MARK = re.compile(r"#\s*claim:\s*(?P<kind>[\w-]+)\s+(?P<expect>shown|absent|unreached)(?P<params>[^#]*)$")


def run_cli(*args):
    return CliRunner().invoke(main, list(args))


# -- the claim vocabulary, measured on one real run ------------------------------


def _marked(source):
    for row, line in enumerate(source.splitlines(), 1):
        m = _MARK.search(line)
        if not m:
            continue
        raw = {"claim": m.group("kind")}
        for item in m.group("params").split():
            key, value = item.split("=", 1)
            raw[key] = value.split(",") if key == "exception" else value
        stmt = line.split("#")[0].strip()
        node = None
        if not stmt.endswith(":"):
            small = cst.parse_statement(stmt).body[0]
            node = small.value if isinstance(small, cst.Expr) else small
        yield row, parse_claim(f"line {row}", raw), m.group("expect"), node


def test_every_claim_kind_is_measured_both_ways():
    path = CASES / "claims_showcase.py"
    source = path.read_text()
    index, watches = SourceIndex(source), Watches()
    cases = []
    for row, claim, expect, node in _marked(source):
        regions = [claim.region] if claim.kind in claims.REGION_KINDS else []
        plan = plan_site(
            index, watches, index.unit_at(row), regions, receiver_of(node), claim.kind in claims.NEEDS_FUNCTION
        )
        cases.append((row, claim, expect, plan))
    config = {"mode": "script", "script": path.name, **watches.to_config()}
    outcome = sandbox.run(config, {path.name: source}, sandbox.Limits(timeout=120))
    run = RunView(outcome)
    assert run.status().kind == "completed", (run.status(), outcome.stderr_tail)
    kinds = {claim.kind: set() for _, claim, _, _ in cases}
    for row, claim, expect, plan in cases:
        if expect == "unreached":
            assert not run.statement(plan.site).get("entered"), row
            continue
        obs = claims.judge(claim, run, plan)
        assert obs.shown == (expect == "shown"), (row, claim.kind, obs.text)
        kinds[claim.kind].add(expect)
    # Each kind of the vocabulary is exercised, and each both ways.
    assert set(kinds) == set(catalog.CLAIM_KINDS)
    assert all(seen >= {"shown", "absent"} for seen in kinds.values()), kinds


def test_inplace_check_survives_the_saved_tensor_hooks(torch):
    """torch skips its version-counter check when saved-tensor hooks are set;
    the harness makes it again, with torch's own message."""
    script = (
        "import torch\n"
        "w = torch.ones(2, 3, requires_grad=True)\n"
        "h = w.exp()\n"
        "h.detach().mul_(2)\n"
        "h.sum().backward()\n"
    )
    outcome = sandbox.run({"mode": "script", "script": "s.py"}, {"s.py": script})
    end = outcome.payload["outcome"]
    assert end["kind"] == "exception" and end["line"] == 5
    w = torch.ones(2, 3, requires_grad=True)
    h = w.exp()
    h.detach().mul_(2)
    with pytest.raises(RuntimeError) as plain:
        h.sum().backward()
    assert end["message"] == str(plain.value)
    assert "which is output 0 of Exp, is at version 1; expected version 0 instead." in end["message"]


def test_seed_is_applied_before_the_script(torch):
    script = "import random, torch\nprint(random.random(), torch.rand(1).item())\n"
    outcome = sandbox.run({"mode": "script", "script": "s.py", "seed": 7}, {"s.py": script})
    import random

    random.seed(7)
    torch.manual_seed(7)
    assert outcome.stdout == f"{random.random()} {torch.rand(1).item()}\n"


# -- probes --------------------------------------------------------------------


def test_probes_confirm_every_rule_on_installed_torch(torch):
    result = run_cli("verify", "--probes", "--output-format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["torch"] == torch.__version__
    rows = {p["code"]: p for p in data["probes"]}
    assert set(rows) == {code for code, doc in catalog.load().items() if doc.probe}
    for code, row in rows.items():
        assert row["verdict"] == "CONFIRMED", row
        assert row["observed"] and all(c["holds"] for c in row["confirms"])
    assert any(o["value"] == "AddmmBackward0" for o in rows["GL001"]["observed"])


def test_probe_verdicts_refuted_and_error(monkeypatch):
    from dataclasses import replace

    base = catalog.load()["GL001"]
    fake = {
        "GL001": replace(base, probe=catalog.Probe("holds", "confirm(1 + 1 == 2, 'arithmetic works')")),
        "GL002": replace(base, code="GL002", probe=catalog.Probe("refuted", "observe('x', 3)\nconfirm(False, 'x is 4')")),
        "GL003": replace(base, code="GL003", probe=catalog.Probe("crashes", "observe('x', 1)\n1 / 0")),
        "GL004": replace(base, code="GL004", probe=catalog.Probe("says nothing", "observe('x', 1)")),
    }
    monkeypatch.setattr(catalog, "load", lambda: fake)
    result = run_cli("verify", "--probes")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "GL001  CONFIRMED  holds"
    assert "GL002  REFUTED    refuted" in lines
    assert "    x = 3" in lines and "    FAILS: x is 4" in lines
    assert "GL003  ERROR      crashes" in lines
    assert "    error: ZeroDivisionError: division by zero (probe line 2)" in lines
    assert "    error: the probe called confirm() nowhere" in lines
    assert lines[-1].startswith("4 probes on torch ") and ": 1 confirmed, 3 not (ERROR, REFUTED)" in lines[-1]


# -- file mode -----------------------------------------------------------------

# Every rule's runnable scripts, ``fixtures/<CODE>/verify/<case>.py``, each checked
# with its folder's configuration (GL203's and GL204's switch them on, GL301's the
# preview tier); beside each, its ``.verified`` sidecar (``tests/update_fixtures.py``).
VERIFY_FIXTURES = verify_cases()


def _name(path):
    return path.relative_to(FIXTURES).as_posix()


def _digest(paths):
    return {_name(p): hashlib.sha256(p.read_bytes()).hexdigest() for d in {p.parent for p in paths} for p in sorted(d.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def fixture_run():
    """Every script, as written and as fixed (unsafe fixes included, as
    `gradlint verify --unsafe-fixes -j 2 fixtures/GL*/verify/*.py` runs them),
    in one batch: about 30 sandboxed runs."""
    before = _digest(VERIFY_FIXTURES)
    results, items = run_verify(VERIFY_FIXTURES)
    assert _digest(VERIFY_FIXTURES) == before, "verify changed or added files beside the scripts"
    return results, {_name(path): item for path, item in zip(VERIFY_FIXTURES, items)}


@pytest.fixture(scope="module")
def fixture_results(fixture_run):
    return fixture_run[0]


@pytest.fixture(scope="module")
def fixture_json(fixture_run):
    return {"by_file": fixture_run[1]}


@pytest.mark.parametrize("path", VERIFY_FIXTURES, ids=_name)
def test_verify_fixture_as_its_sidecar_says(fixture_json, path):
    """Each finding's position, code, verdict and bytes measured, and its fix's
    safety, verdict and memory figures, as the ``.verified`` beside the script says."""
    sidecar = verified_path(path)
    assert sidecar.exists(), f"{_name(sidecar)} is missing: python tests/update_fixtures.py {path.parent.parent.name}"
    assert verified_lines(fixture_json["by_file"][_name(path)]) == sidecar.read_text(encoding="utf-8").splitlines()


def test_every_verify_sidecar_has_its_script():
    scripts = {verified_path(p) for p in VERIFY_FIXTURES}
    assert sorted(_name(p) for p in FIXTURES.glob("GL*/verify/*.verified") if p not in scripts) == []


def test_every_rule_with_claims_is_verified_in_its_own_place(fixture_json):
    """Every rule with runtime claims has a script in its own folder that confirms
    them; every fixable one, a script there that measures its fix."""
    by_file = fixture_json["by_file"]
    rules = catalog.load()
    confirmed, fixed = set(), set()
    for name, item in by_file.items():
        owner = name.split("/")[0]
        for f in item["findings"]:
            if f["code"] == owner and f["verdict"] == "CONFIRMED":
                confirmed.add(owner)
                if f["fix"] and f["fix"]["applied"]:
                    fixed.add(owner)
    assert confirmed == {code for code, doc in rules.items() if doc.verify}
    assert fixed == {code for code, doc in rules.items() if doc.fix != "none" and doc.verify}
    # and nothing verify reports is a finding the scripts' folders do not expect
    assert {f["code"] for item in by_file.values() for f in item["findings"]} == confirmed


def test_fixtures_summary_is_the_sidecars(fixture_results):
    from gradlint.verify.scripts import summary

    lines = [line for p in VERIFY_FIXTURES if verified_path(p).exists() for line in verified_path(p).read_text().splitlines()]
    assert summary(fixture_results) == verified_summary(lines)


def test_memory_claims_measured_and_gone_after_the_fix(fixture_json):
    by_file = fixture_json["by_file"]
    gl001 = by_file["GL001/verify/volatile_eval.py"]
    assert gl001["runs"]["as_written"]["status"] == "completed" and gl001["runs"]["as_fixed"]["status"] == "completed"
    (finding,) = gl001["findings"]
    # The MLP's forward saves x and two ReLU outputs, 1 MiB each; two
    # iterations' graphs are alive at once (`logits` is rebound after the next forward).
    assert finding["saved_bytes"] == 6 * 2**20
    assert finding["fix"]["memory"] == [{"what": "saved for backward", "as_written": 6 * 2**20, "as_fixed": 0}]
    assert finding["observed"][0].startswith("UserWarning at line 19: volatile was removed and now has no effect.")
    assert "logits (line 20): grad_fn=AddmmBackward0" in finding["observed"][1]
    assert "warning gone" in finding["fix"]["details"]
    # GL101 (the eval-mode forward at line 20, which the decorator guards too) runs only with --preview.
    assert gl001["fixes_applied"] == 1
    # The finding is what `gradlint check --output-format json` says, plus verify's keys.
    assert (finding["cell"], finding["noqa_row"], finding["end_location"]) == (None, 19, {"row": 19, "column": 49})
    assert {"content": "@torch.no_grad()\n", "location": {"row": 15, "column": 1}, "end_location": {"row": 15, "column": 1}} in finding["fix"]["edits"]

    (validate,) = by_file["GL101/verify/validate.py"]["findings"]
    # A validation batch of 512x128 and two ReLU outputs of 512x256 (float32),
    # for two forwards alive at once: 2 x (256 + 512 + 512) KiB.
    assert validate["saved_bytes"] == 2 * (256 + 512 + 512) * 1024
    assert validate["fix"]["memory"] == [{"what": "saved for backward", "as_written": 2621440, "as_fixed": 0}]
    assert validate["observed"] == [
        "graph recorded: saved for backward: 2.5 MiB (+ 266.0 KiB of parameters); logits (line 17): grad_fn=AddmmBackward0"
    ]

    (gl301,) = by_file["GL301/verify/val_loss.py"]["findings"]
    # Five earlier batches of 128, each keeping its input (128x256), two ReLU
    # outputs (128x512) and the MSE loss's output and target (128x1), float32.
    per_batch = (128 * 256 + 2 * 128 * 512 + 2 * 128) * 4
    assert gl301["retained_bytes"] == 5 * per_batch
    assert gl301["fix"]["memory"] == [{"what": "kept alive after the loop", "as_written": 5 * per_batch, "as_fixed": 0}]
    # and the graph nodes the total references grow by one forward's worth per iteration
    assert gl301["observed"] == [
        "saved by earlier iterations and still alive after the loop: 3.1 MiB (6 iterations); "
        "autograd nodes reachable from `total`: 16 after its first update, 66 after its last (+10.0 per iteration)"
    ]


def test_errors_claimed_and_gone_after_the_fix(fixture_json):
    by_file = fixture_json["by_file"]
    gl003 = by_file["GL003/verify/train_log.py"]
    assert gl003["runs"]["as_written"]["status"] == "exception"
    assert gl003["runs"]["as_written"]["text"].startswith("raised IndexError: invalid index of a 0-dim tensor.")
    assert gl003["findings"][0]["fix"]["details"] == ["as fixed: completed"]
    gl102 = by_file["GL102/verify/predict.py"]
    # Python 3.11 changed the exception `with` raises on an object that is not a context manager.
    raised = (
        "TypeError: 'type' object does not support the context manager protocol"
        if sys.version_info >= (3, 11)
        else "AttributeError: __enter__"
    )
    assert gl102["runs"]["as_written"]["text"] == f"raised {raised} at line 17"
    assert gl102["runs"]["as_fixed"]["status"] == "completed"
    assert gl102["findings"][0]["fix"]["details"] == ["as fixed: completed"]
    # The in-place clamp of the alias breaks the backward two lines later; editing a copy does not.
    gl201 = by_file["GL201/verify/stop_gradient.py"]
    assert gl201["runs"]["as_written"]["status"] == "exception"
    (finding,) = gl201["findings"]
    assert finding["observed"][0].startswith(
        "raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.FloatTensor [16, 64]], which is output 0 of Tanh,"
    )
    assert finding["observed"][0].endswith("(line 23)")
    assert finding["fix"]["applicability"] == "unsafe" and finding["fix"]["details"] == ["as fixed: completed"]
    (gl103,) = by_file["GL103/verify/backward_under_no_grad.py"]["findings"]
    assert gl103["observed"] == ["raised RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn (line 16)"]


def test_state_claims_before_and_after_the_fix(fixture_json):
    by_file = fixture_json["by_file"]
    # GL202 and GL204: the .data edit changes the parameter without moving its version; the fix moves it.
    (clamp,) = by_file["GL202/verify/forward_clamp.py"]["findings"]
    assert re.fullmatch(r"`self.head.bias` changed \(sum \S+ → \S+\) but its version stayed \d+", clamp["observed"][0])
    assert re.fullmatch(r"as fixed: `self.head.bias`: sum \S+ → \S+, version (\d+) → \d+", clamp["fix"]["details"][0])
    update, zero = by_file["GL204/verify/manual_sgd.py"]["findings"]
    assert re.fullmatch(r"`p` changed \(sum \S+ → \S+\) but its version stayed 1", update["observed"][0])
    assert re.fullmatch(r"as fixed: `p`: sum \S+ → \S+, version 1 → 2", update["fix"]["details"][0])
    assert re.fullmatch(r"`p.grad` changed \(sum \S+ → 0\) but its version stayed 0", zero["observed"][0])
    assert re.fullmatch(r"as fixed: `p.grad`: sum \S+ → 0, version 0 → 1", zero["fix"]["details"][0])
    # GL106: gradients are already off at the inner guard, and still off where its body went.
    (gl106,) = by_file["GL106/verify/nested_guards.py"]["findings"]
    assert gl106["observed"] == ["gradients disabled when line 19 started: 1 of 1 times"]
    assert gl106["fix"]["details"] == []
    (gl105,) = by_file["GL105/verify/predict_quietly.py"]["findings"]
    assert gl105["observed"] == [
        "`predict_quietly` returned with gradients disabled 1 of 1 times, though they were enabled when it was called"
    ]
    (gl203,) = by_file["GL203/verify/data_reads.py"]["findings"]
    assert gl203["observed"] == ["_: requires_grad=False grad_fn=None; predicted: requires_grad=False grad_fn=None"]
    proj = by_file["GL002/verify/feature_matching.py"]["findings"][2]
    assert proj["observed"] == ["proj: requires_grad=False grad_fn=None, shares storage with `netD.0.weight`, which requires grad"]


def test_freezing_fixes_change_results_on_purpose(fixture_json):
    """GL302/GL303: the fix really freezes the parameters, so training
    differs: INTENDED CHANGE, with what was frozen and the first difference."""
    by_file = fixture_json["by_file"]
    (gl302,) = by_file["GL302/verify/freeze_backbone.py"]["findings"]
    assert gl302["observed"] == ["`backbone`: 4 → 4 of 4 parameters require grad across line 14"]
    assert gl302["fix"]["details"][0] == "as fixed: `backbone`: 4 → 0 of 4 parameters require grad across line 14"
    # The first step's loss is the same (nothing has been updated yet); the second differs.
    assert re.fullmatch(r"output line 2: 'step 1 loss \S+' as written, 'step 1 loss \S+' as fixed", gl302["fix"]["details"][1])
    (gl303,) = by_file["GL303/verify/freeze_typo.py"]["findings"]
    assert gl303["observed"] == ["`p`.requires_grad: True → True across line 14"]
    assert gl303["fix"]["details"][0] == "as fixed: `p`.requires_grad: True → False across line 14"
    assert gl303["fix"]["details"][1].startswith("output line 2: 'step 1 loss ")


def _text_report(fixture_results, name):
    from gradlint.verify import report

    return report.files_text([r for r in fixture_results if r.path.endswith(name)]).splitlines()


def test_fixture_text_report(fixture_results):
    lines = _text_report(fixture_results, "GL001/verify/volatile_eval.py")
    assert lines[0] == str(FIXTURES / "GL001" / "verify" / "volatile_eval.py")
    assert lines[1].startswith("  as written: completed (") and lines[2].startswith("  as fixed  : completed (")
    assert lines[2].endswith("), 1 fix applied")
    assert lines[3] == "  19:18 GL001 CONFIRMED"
    assert "    fix: SAME RESULT (safe: Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`)" in lines
    assert "        saved for backward: 6.0 MiB → 0 B" in lines
    assert not any("GL101" in line for line in lines)  # a preview rule
    assert lines[-1] == "1 file, 1 finding: 1 confirmed; 1 fix: 1 same result."

    lines = _text_report(fixture_results, "GL101/verify/validate.py")
    assert lines[3:] == [
        "  17:14 GL101 CONFIRMED",
        "        graph recorded: saved for backward: 2.5 MiB (+ 266.0 KiB of parameters); logits (line 17): grad_fn=AddmmBackward0",
        "    fix: SAME RESULT (safe: Wrap the loop in `with torch.no_grad():`)",
        "        saved for backward: 2.5 MiB → 0 B",
        "",
        "1 file, 1 finding: 1 confirmed; 1 fix: 1 same result.",
    ]
    lines = _text_report(fixture_results, "GL302/verify/freeze_backbone.py")
    assert lines[3:6] == [
        "  14:1 GL302 CONFIRMED",
        "        `backbone`: 4 → 4 of 4 parameters require grad across line 14",
        "    fix: INTENDED CHANGE (unsafe: Call `backbone.requires_grad_(False)`)",
    ]
    assert lines[-1] == "1 file, 1 finding: 1 confirmed; 1 fix: 1 intended change."


def test_runs_that_do_not_finish_get_clear_verdicts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "forever.py").write_text(
        "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(3))\nwhile True:\n    pass\n"
    )
    (tmp_path / "exits.py").write_text(
        "import os\nimport torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(3))\nos._exit(3)\n"
    )
    (tmp_path / "unused.py").write_text(
        "import torch\n\n\ndef report(loss):\n    print(loss.sum().data[0])\n\n\nprint(torch.ones(2).sum().item())\n"
    )
    start = time.monotonic()
    result = run_cli("verify", "--timeout", "3", "-j", "4", "--output-format", "json", "forever.py", "exits.py", "unused.py")
    elapsed = time.monotonic() - start
    assert result.exit_code == 1, result.output
    assert elapsed < 3 + sandbox.GRACE + 20
    files = {f["filename"]: f for f in json.loads(result.stdout)["files"]}
    forever = files["forever.py"]
    assert forever["runs"]["as_written"] == {**forever["runs"]["as_written"], "status": "timeout", "text": "TIMEOUT after 3 s"}
    (finding,) = forever["findings"]
    # Measured until the timeout: the Variable line ran before the endless loop.
    assert finding["verdict"] == "CONFIRMED" and finding["observed"][-1] == "(measured until the run's TIMEOUT after 3 s)"
    assert finding["fix"]["verdict"] == "TIMEOUT"
    exits = files["exits.py"]
    assert exits["runs"]["as_written"]["text"] == "CRASHED: exited with status 3 before finishing (os._exit or a fatal error)"
    assert exits["findings"][0]["verdict"] == "CRASHED"
    unused = files["unused.py"]
    assert unused["findings"][0]["verdict"] == "NOT REACHED"
    # A line that never ran vouches for nothing: it says why, and what would make it run.
    assert unused["findings"][0]["observed"] == [
        "line 5 never ran: `report()` is never called",
        "to run it: pass --driver driver.py that imports `unused` and calls `report(...)` with arguments",
    ]
    assert unused["findings"][0]["fix"]["verdict"] == "NOT EXERCISED"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exits.py", "forever.py", "unused.py"]


def test_files_using_torch_func_run_without_saved_tensor_hooks():
    from gradlint.verify.scripts import _REFUSES_SAVED_HOOKS

    script = "import torch\ng = torch.func.grad(lambda x: (x.sin() ** 2).sum())(torch.ones(3))\nprint(g.sum().item() > 0)\n"
    assert _REFUSES_SAVED_HOOKS.search(script)
    for text in ("from torch.func import grad", "model = torch.compile(model)", "from torch import compile"):
        assert _REFUSES_SAVED_HOOKS.search(text), text
    assert not _REFUSES_SAVED_HOOKS.search("import torch.nn.functional as F\nF.relu(x)")
    # Under the hooks torch.func refuses to run: that is why they are left out.
    hooked = sandbox.run({"mode": "script", "script": "s.py"}, {"s.py": script})
    assert hooked.payload["outcome"]["message"].startswith("torch.func.{grad, vjp, jacrev, hessian} don't yet support")
    plain = sandbox.run({"mode": "script", "script": "s.py", "saved_hooks": False}, {"s.py": script})
    assert plain.stdout == "True\n" and plain.payload["saved_measured"] is False


# -- reaching code that runs only when called ---------------------------------------

TRAIN = '''import torch
from pkg.helpers import make


def evaluate():
    torch.manual_seed(0)
    model, batches = make()
    model.eval()
    total = 0.0
    for x in batches:
        out = model(x)
        total += out.sum().item()
    print(f"total {total:.4f}")


if __name__ == "__main__":
    print("as a script")
'''


@pytest.fixture()
def project(tmp_path):
    """A package whose module imports a sibling by its package name (so only
    from the project's root) and whose flagged line is in a function nothing calls."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text(
        "import torch\n\n\ndef make():\n    return torch.nn.Linear(4, 2), [torch.randn(3, 4) for _ in range(2)]\n"
    )
    (root / "pkg" / "train.py").write_text(TRAIN)
    (root / "drive.py").write_text("from pkg import train\n\ntrain.evaluate()\ntrain.evaluate()\n")
    (root / "run_eval.py").write_text("from pkg.train import evaluate\n\n\ndef main():\n    evaluate()\n")
    return root


def test_a_function_nobody_calls_is_reached_with_entry_or_driver(project, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    path = str(project / "pkg" / "train.py")
    result = run_cli("verify", "-j", "2", "--preview", path)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    # The sibling import worked (the run completed), and the line never ran: nothing is vouched for.
    assert lines[1].startswith("  as written: completed") and lines[2].startswith("  as fixed  : completed")
    assert lines[3:8] == [
        "  11:15 GL101 NOT REACHED",
        "        line 11 never ran: `evaluate()` is never called",
        "        to run it: pass --entry pkg.train:evaluate",
        "    fix: NOT EXERCISED (safe: Wrap the loop in `with torch.no_grad():`)",
        "        line 11 never ran as written: nothing to compare",
    ]
    assert lines[-1] == "1 file, 1 finding: 1 not reached; 1 fix: 1 not exercised."

    result = run_cli("verify", "-j", "2", "--preview", "--output-format", "json", "--entry", "pkg.train:evaluate", path)
    assert result.exit_code == 0, result.output
    (finding,) = json.loads(result.stdout)["files"][0]["findings"]
    assert (finding["verdict"], finding["reached"], finding["fix"]["verdict"]) == ("CONFIRMED", True, "SAME RESULT")
    assert finding["why_not_run"] is None and finding["next_step"] is None
    # What ran is pinned as the recall set pins its sites.
    assert json.loads(result.stdout)["files"][0]["sha256"] == hashlib.sha256(TRAIN.encode()).hexdigest()

    # A driver, or an entry in another module, imports the file: each run gets the
    # version it runs (nothing is saved for backward as fixed), not the file on disk.
    for option in (["--driver", str(project / "drive.py")], ["--entry", f"{project / 'run_eval.py'}:main"]):
        result = run_cli("verify", "-j", "2", "--preview", "--output-format", "json", *option, path)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        (finding,) = data["files"][0]["findings"]
        assert (finding["verdict"], finding["fix"]["verdict"]) == ("CONFIRMED", "SAME RESULT")
        assert finding["fix"]["memory"] == [{"what": "saved for backward", "as_written": 96, "as_fixed": 0}]
        assert data["summary"] == {"CONFIRMED": 1, "fix SAME RESULT": 1}
