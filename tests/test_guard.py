"""`pytest --gradlint-guard`: real pytest sessions (pytester) over a clean and a seeded suite.

The suites are tests/guard_suites/*.py; each finding of the seeded one is
expected at the line and column of a statement found in its text.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SUITES = Path(__file__).resolve().parent / "guard_suites"
SEEDED = (SUITES / "seeded_suite.py").read_text()
CLEAN = (SUITES / "clean_suite.py").read_text()


def at(source: str, text: str, nth: int = 1):
    """(row, column), 1-based, of the nth occurrence of ``text`` in ``source``."""
    offset = -1
    for _ in range(nth):
        offset = source.index(text, offset + 1)
    row = source.count("\n", 0, offset) + 1
    return row, offset - (source.rfind("\n", 0, offset) + 1) + 1


# (code, test, statement the finding is at): one of each kind the guard reports,
# and one (the callable) that no static rule sees.
EXPECTED = [
    ("GL101", "test_eval_without_no_grad", "model(x)\n        correct"),
    ("GL301", "test_validation_loss_accumulated", "total += loss"),
    ("GL301", "test_training_loss_history", "history.append(loss)"),
    ("GL201", "test_edit_through_detach", "probs.detach().clamp_(0.1, 0.9)"),
    ("GL202", "test_edit_through_data", "probs.data.mul_(2)"),
    ("GL101", "test_prediction_through_a_callable", "fn(batch)"),
    ("GL105", "test_grad_switched_off", "torch.set_grad_enabled(False)\n"),
]


@pytest.fixture(scope="module", autouse=True)
def _torch_imported_once():
    # The suites run in this process (pytester's inline runs), which drop the modules
    # a run imported. An optimizer's first step imports torch._dynamo, whose operator
    # library cannot be registered twice in one process: import it here, once, before
    # the first suite runs. Here rather than at the top of the file, so that
    # collecting the test suite does not import torch (seconds of CPU in every run).
    import torch
    import torch._dynamo  # noqa: F401

    return torch


@pytest.fixture(autouse=True)
def _grad_mode_restored(_torch_imported_once):
    # The seeded suite leaves gradients off on purpose (GL105), and runs in this process.
    yield
    _torch_imported_once.set_grad_enabled(True)


def _suite(pytester, seeded: str = SEEDED, clean: str = CLEAN):
    pytester.makepyfile(models=(SUITES / "models.py").read_text(), test_seeded=seeded, test_clean=clean)
    pytester.syspathinsert()


def _run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def _findings(path: Path):
    return [(f["code"], f["test"], f["location"]["row"], f["location"]["column"]) for f in json.loads(path.read_text())]


def _expected(source: str = SEEDED, skip=()):
    out = []
    for code, test, text in EXPECTED:
        if test in skip:
            continue
        row, column = at(source, text)
        out.append((code, f"test_seeded.py::{test}", row, column))
    return sorted(out, key=lambda f: (f[2], f[3]))


def test_plugin_module_imports_without_torch():
    code = (
        "import sys, gradlint.guard.plugin, gradlint.guard.report\n"
        "sys.exit(1 if 'torch' in sys.modules else 0)\n"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_clean_suite_has_no_findings(pytester):
    _suite(pytester)
    result = _run(pytester, "--gradlint-guard=fail", "--gradlint-guard-report=guard.json", "test_clean.py")
    result.assert_outcomes(passed=6)
    assert result.ret == 0
    assert json.loads((pytester.path / "guard.json").read_text()) == []
    result.stdout.fnmatch_lines(["*= gradlint guard =*", "no findings; report written to guard.json"])


def test_seeded_suite_each_finding_at_its_line(pytester):
    _suite(pytester)
    result = _run(pytester, "--gradlint-guard", "--gradlint-guard-report=guard.json", "test_seeded.py")
    result.assert_outcomes(passed=7)
    assert result.ret == 0  # warn
    assert _findings(pytester.path / "guard.json") == _expected()
    rows = {code: at(SEEDED, text) for code, _, text in EXPECTED}
    result.stdout.fnmatch_lines(
        [
            f"test_seeded.py:{rows['GL201'][0]}:5: GL201 `clamp_` edited, through a `.detach()` alias, a tensor that "
            f"the forward at test_seeded.py:{rows['GL201'][0] - 1} saved for backward: backward raised autograd's "
            "RuntimeError (modified by an inplace operation)",
            "    in test_seeded.py::test_edit_through_detach",
        ]
    )
    result.stdout.fnmatch_lines(["7 findings; report written to guard.json"])


def test_seeded_findings_report_what_was_measured(pytester):
    _suite(pytester)
    _run(pytester, "--gradlint-guard-report=guard.json", "test_seeded.py")
    items = {(f["code"], f["test"].split("::")[1]): f for f in json.loads((pytester.path / "guard.json").read_text())}
    evaluate = items["GL101", "test_eval_without_no_grad"]
    # Six batches of 4x8 inputs (128 B each) and 4x16 ReLU outputs (256 B each).
    assert evaluate["count"] == 6
    assert evaluate["details"] == {"saved_bytes": 6 * (128 + 256)}
    assert "(6 times; 2.2 KiB saved for backward in all, parameters not counted)" in evaluate["message"]
    assert evaluate["end_location"] == {"row": evaluate["location"]["row"], "column": evaluate["location"]["column"] + 8}
    assert evaluate["url"] == "https://gradlint.readthedocs.io/en/latest/rules/GL101/"
    assert evaluate["filename"] == "test_seeded.py" and evaluate["fix"] is None

    validation = items["GL301", "test_validation_loss_accumulated"]
    forward_row = at(SEEDED, "loss = F.cross_entropy(model(x), y)\n        total")[0]
    assert validation["related"]["location"] == {"row": forward_row, "column": at(SEEDED, "model(x), y)\n        total")[1]}
    assert validation["details"]["holder"] == "total"
    assert validation["details"]["steps"] == 5  # the sixth forward found five graphs still alive
    assert validation["details"]["bytes_per_step"] == 128 + 256
    assert validation["message"].startswith(
        f"`total` keeps the autograd graph of every call of the forward at line {forward_row} alive after its "
        "iteration (5 graphs alive at once, growing step after step: +"
    )
    history = items["GL301", "test_training_loss_history"]
    assert history["details"]["holder"] == "history" and history["details"]["bytes_per_step"] == 0
    assert "per step, the nodes only: backward freed the saved tensors)" in history["message"]

    assert items["GL201", "test_edit_through_detach"]["details"] == {"outcome": "raised"}
    data = items["GL202", "test_edit_through_data"]
    # Sigmoid saved its 4x4 output; `mul_(2)` changed every element of it.
    assert data["details"] == {"outcome": "used", "changed": 16, "elements": 16}
    assert data["related"]["location"]["row"] == at(SEEDED, "probs.data.mul_(2)")[0] - 1
    assert data["message"] == (
        f"`mul_` edited, through `.data`, a tensor that the forward at test_seeded.py:{data['related']['location']['row']} "
        "saved for backward: changed 16 of 16 elements, autograd did not see the edit, and backward used the edited values"
    )
    assert items["GL105", "test_grad_switched_off"]["message"].startswith(
        "gradients were enabled when this test started and are still disabled at its end"
    )


def test_fail_mode_fails_the_session_not_the_tests(pytester):
    _suite(pytester)
    result = _run(pytester, "--gradlint-guard=fail", "test_seeded.py")
    result.assert_outcomes(passed=7)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["7 findings; the session fails (--gradlint-guard=fail)"])


def test_noqa_on_the_users_line_suppresses(pytester):
    seeded = (
        SEEDED.replace("logits = model(x)\n", "logits = model(x)  # noqa: GL101\n")
        .replace("total += loss\n", "total += loss  # noqa\n")
        # Another code does not suppress GL202.
        .replace("probs.data.mul_(2)\n", "probs.data.mul_(2)  # noqa: GL201\n")
    )
    _suite(pytester, seeded=seeded)
    _run(pytester, "--gradlint-guard-report=guard.json", "test_seeded.py")
    skip = ("test_eval_without_no_grad", "test_validation_loss_accumulated")
    assert _findings(pytester.path / "guard.json") == _expected(seeded, skip=skip)


def test_enabled_from_pyproject(pytester):
    _suite(pytester)
    pytester.makefile(".toml", pyproject='[tool.gradlint.guard]\nmode = "fail"\nreport = "out/guard.json"\n')
    result = _run(pytester, "test_seeded.py")
    assert result.ret == 1
    assert _findings(pytester.path / "out" / "guard.json") == _expected()


def test_bare_flag_before_a_path_and_bad_values(pytester):
    _suite(pytester)
    result = _run(pytester, "--gradlint-guard", "test_clean.py")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*gradlint guard*", "no findings"])
    result = _run(pytester, "--gradlint-guard=loud", "test_clean.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --gradlint-guard: 'loud' is not one of warn, fail (write --gradlint-guard=fail)"])
    pytester.makefile(".toml", pyproject='[tool.gradlint.guard]\nmode = "strict"\n')
    result = _run(pytester, "test_clean.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: gradlint guard: [tool.gradlint.guard] mode must be one of warn, fail"])


def test_off_by_default(pytester):
    _suite(pytester)
    result = _run(pytester, "test_seeded.py")
    result.assert_outcomes(passed=7)
    assert "gradlint guard" not in result.stdout.str()


def test_guard_keeps_autograds_version_check(pytester):
    # Saved-tensor hooks switch autograd's version check off; the guard raises its error itself.
    pytester.makepyfile(
        test_version="""
        import pytest, torch

        def test_edit_detected():
            model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Sigmoid())
            out = model(torch.ones(2, 3))
            out.add_(1)  # Sigmoid saved its output
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                out.sum().backward()
        """
    )
    result = _run(pytester, "--gradlint-guard", "test_version.py")
    result.assert_outcomes(passed=1)


def test_check_cross_checks_the_report_of_a_real_run(pytester):
    _suite(pytester)
    _run(pytester, "--gradlint-guard-report=guard.json", "test_seeded.py")
    # A process of its own: pytester drops the modules a test imported when it ends,
    # and the rule modules must not be imported twice in one process. GL301 is a
    # preview rule: its static findings are there to confirm with the tier on.
    result = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--no-cache", "--preview", "--output-format", "concise", "-q",
         "--guard-report", "guard.json", "test_seeded.py"],
        cwd=pytester.path, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1, result.stderr
    marks = []
    for line in result.stdout.splitlines():
        location, code = line.split(": ")[0], line.split()[1]
        if "; confirmed by " in line:
            marks.append((location, code, "confirmed", line.rsplit("; confirmed by ", 1)[1].removesuffix(" [*]")))
        elif " seen at run time by " in line:
            marks.append((location, code, "runtime only", line.split(" seen at run time by ")[1].split(",")[0]))
    expected = []
    for code, test, text in EXPECTED:
        row, column = at(SEEDED, text)
        kind = "runtime only" if test == "test_prediction_through_a_callable" else "confirmed"
        expected.append((f"test_seeded.py:{row}:{column}", code, kind, f"test_seeded.py::{test}"))
    assert sorted(marks) == sorted(expected)


KEPT = '''import torch
from torch import nn


def test_outputs_kept():
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    out = None
    outputs = []
    for _ in range(5):
        out = model(torch.ones(3, 4))
        outputs.append(out)
    assert len(outputs) == 5


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
        self.history = []

    def step(self, x):
        loss = self.model(x).sum()
        loss.backward()
        self.history.append(loss)


def test_history_kept_on_an_attribute():
    trainer = Trainer()
    for _ in range(5):
        trainer.step(torch.ones(2, 4))
'''


def test_kept_alive_names_the_accumulator_not_the_last_iterations_variable(pytester):
    pytester.makepyfile(test_kept=KEPT)
    _run(pytester, "--gradlint-guard-report=guard.json", "test_kept.py")
    items = json.loads((pytester.path / "guard.json").read_text())
    got = [(i["code"], i["location"]["row"], i["location"]["column"], i["details"]["holder"], i["related"]["location"]["row"]) for i in items]
    assert got == [
        ("GL301", *at(KEPT, "outputs.append(out)"), "outputs", at(KEPT, "out = model(")[0]),
        # Found in the innermost frame that holds it: `self` in `Trainer.step`.
        ("GL301", *at(KEPT, "self.history.append"), "self.history", at(KEPT, "loss = self.model(x)")[0]),
    ]


def test_an_unreadable_pyproject_is_not_the_plugins_business(pytester):
    pytester.makepyfile(test_one="def test_one():\n    assert True\n")
    (pytester.path / "pyproject.toml").write_text("[tool.other\n")
    result = _run(pytester, "-c", "/dev/null", "test_one.py")
    result.assert_outcomes(passed=1)
    assert "gradlint guard" not in result.stdout.str()


def test_packaged_as_a_pytest11_entry_point():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"gradlint-guard": "gradlint.guard.plugin"}
    assert "gradlint.guard" in project["tool"]["setuptools"]["packages"]
    assert project["project"]["optional-dependencies"]["guard"] == ["torch>=2.1", "pytest>=7"]


def test_grad_switched_off_unseen_is_reported_at_the_test(pytester):
    pytester.makepyfile(
        test_switch="""
        import torch


        def test_low_level_switch():
            torch._C._set_grad_enabled(False)


        def test_restored():
            with torch.no_grad():
                pass
        """
    )
    _run(pytester, "--gradlint-guard-report=guard.json", "test_switch.py")
    (item,) = json.loads((pytester.path / "guard.json").read_text())
    assert (item["code"], item["location"], item["test"]) == ("GL105", {"row": 4, "column": 1}, "test_switch.py::test_low_level_switch")
    assert "switched off during this test (not through `torch.set_grad_enabled`)" in item["message"]


def test_an_exception_inside_the_guard_never_reaches_the_test(pytester):
    pytester.makepyfile(
        test_weird="""
        import torch

        class Weird(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(2, 2)

            def parameters(self, recurse=True):
                raise ValueError("parameters are computed lazily")

            def forward(self, x):
                return self.lin(x)

        def test_forward_and_backward():
            Weird()(torch.ones(1, 2)).sum().backward()
        """
    )
    result = _run(pytester, "--gradlint-guard", "test_weird.py")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "no findings",
        "guard-internal: forward pre-hook: ValueError: parameters are computed lazily; swallowed, no test saw it",
    ])


HOLDERS = """import unittest.mock as mock

import torch
from torch import nn

from helpers import predict

LOSSES = []


class Recorder:
    history = []


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 4), nn.Tanh())


def test_append_of_a_forward():
    model = make()
    acc = []
    for _ in range(5):
        acc.append(model(torch.ones(2, 4)))
    assert len(acc) == 5


def test_forward_in_another_file():
    model = make()
    outs = []
    for _ in range(5):
        out = predict(model, torch.ones(2, 4))
        outs.append(out)


def test_module_global_holder():
    model = make()
    for _ in range(5):
        loss = model(torch.ones(2, 4)).sum()
        LOSSES.append(loss)


def test_class_level_holder():
    model = make()
    rec = Recorder()
    for _ in range(5):
        loss = model(torch.ones(2, 4)).sum()
        rec.history.append(loss)


def test_mock_records_losses():
    model = make()
    logger = mock.Mock()
    for _ in range(5):
        loss = model(torch.ones(2, 4)).sum()
        logger.log_metric("loss", loss)
    assert logger.log_metric.call_count == 5


def test_data_edit_that_changes_nothing():
    model = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid())
    probs = model(torch.ones(2, 4))
    probs.data.clamp_(0, 1)
    probs.sum().backward()
"""


def test_holders_named_at_the_accumulation_line(pytester):
    pytester.makepyfile(test_holders=HOLDERS, helpers="def predict(model, x):\n    return model(x)\n")
    pytester.syspathinsert()
    result = _run(pytester, "--gradlint-guard-report=guard.json", "test_holders.py")
    result.assert_outcomes(passed=6)
    items = {f["test"].split("::")[1]: f for f in json.loads((pytester.path / "guard.json").read_text())}
    got = {test: (f["code"], f["location"]["row"], f["location"]["column"], f.get("details", {}).get("holder"),
                  f.get("details", {}).get("kind"), f.get("details", {}).get("category"))
           for test, f in items.items()}
    assert got == {
        # At the append that holds the forward's output, not at `acc = []` or the next use of `acc`.
        "test_append_of_a_forward": ("GL301", *at(HOLDERS, "acc.append(model("), "acc", None, None),
        "test_forward_in_another_file": ("GL301", *at(HOLDERS, "outs.append(out)"), "outs", None, None),
        "test_module_global_holder": ("GL301", *at(HOLDERS, "LOSSES.append(loss)"), "test_holders.LOSSES", "global", None),
        "test_class_level_holder": ("GL301", *at(HOLDERS, "rec.history.append(loss)"), "test_holders.Recorder.history",
                                    "global", None),
        "test_mock_records_losses": ("GL301", *at(HOLDERS, 'logger.log_metric("loss", loss)'), "logger", "mock",
                                     "test-artifact"),
        "test_data_edit_that_changes_nothing": ("GL202", *at(HOLDERS, "probs.data.clamp_(0, 1)"), None, None, None),
    }
    # The forward is named with its file when it is in another one.
    assert "the forward at helpers.py:2 alive" in items["test_forward_in_another_file"]["message"]
    assert items["test_forward_in_another_file"]["related"]["filename"] == "helpers.py"
    assert f"the forward at line {at(HOLDERS, 'acc.append(model(')[0]} alive" in items["test_append_of_a_forward"]["message"]
    row = at(HOLDERS, "loss = model(torch.ones(2, 4)).sum()\n        LOSSES")[0]
    assert (f"keeps the autograd graph of every call of the forward at line {row} alive after its iteration and after "
            "the test, as long as the module lives; they were still alive when the session ended (4 graphs") in (
        items["test_module_global_holder"]["message"])
    assert items["test_mock_records_losses"]["message"].startswith(
        "a `Mock`'s `call_args_list` (`logger` recorded the call arguments) keeps the autograd graph")
    assert "a test artifact, not a defect of the code under test" in items["test_mock_records_losses"]["message"]
    edit = items["test_data_edit_that_changes_nothing"]
    assert edit["details"] == {"outcome": "unchanged", "changed": 0, "elements": 8}
    assert edit["message"].endswith("saved for backward: values unchanged (no element differs from what the forward saved)")
    assert "wrong" not in edit["message"]
    # Test artifacts come last in the terminal, under a heading of their own.
    lines = result.stdout.lines
    heading = lines.index("test artifacts (a Mock recorded the arguments; not defects of the code under test):")
    assert any("GL301 a `Mock`'s `call_args_list`" in line for line in lines[heading:])
    assert not any("GL301 a `Mock`'s" in line for line in lines[:heading])
    result.stdout.fnmatch_lines(["5 findings and 1 test artifact; report written to guard.json"])


def test_a_mock_called_by_the_code_under_test_is_reported_at_the_tests_call(pytester):
    pytester.makepyfile(
        test_fit="""
        from types import SimpleNamespace
        from unittest.mock import Mock

        import torch
        from torch import nn


        class Trainer:
            def __init__(self, parts):
                self.parts = parts

            def fit(self, steps):
                for _ in range(steps):
                    self.parts.criterion(self.parts.model(torch.ones(2, 4))).backward()


        def fit(model, criterion, steps):
            for _ in range(steps):
                criterion(model(torch.ones(2, 4))).backward()


        def test_criterion_deep_in_the_code_under_test():
            criterion = Mock(side_effect=lambda out: out.sum())
            trainer = Trainer(SimpleNamespace(model=nn.Linear(4, 1), criterion=criterion))
            trainer.fit(5)
            assert len(criterion.call_args_list) == 5


        def test_criterion_passed_in():
            criterion = Mock(side_effect=lambda out: out.sum())
            fit(nn.Linear(4, 1), criterion, 5)


        class Net:
            def __init__(self, callbacks):
                self.callbacks = callbacks
                self.module = nn.Linear(4, 1)

            def notify(self, loss):
                for _, cb in self.callbacks:
                    cb.on_batch_end(self, loss=loss)

            def fit(self, steps):
                for _ in range(steps):
                    loss = self.module(torch.ones(2, 4)).sum()
                    loss.backward()
                    self.notify(loss)


        def test_callback_mock_in_a_list():
            net = Net([("dummy", Mock())])
            net.fit(5)
        """
    )
    _run(pytester, "--gradlint-guard-report=guard.json", "test_fit.py")
    items = {i["test"].split("::")[1]: i for i in json.loads((pytester.path / "guard.json").read_text())}
    deep = items["test_criterion_deep_in_the_code_under_test"]
    # The Mock is out of the code's reach by name: it records inside `trainer.fit(5)`, the test's
    # statement, not at the later read of `call_args_list`.
    assert (deep["code"], deep["location"], deep["end_location"]) == ("GL301", {"row": 25, "column": 5}, {"row": 25, "column": 19})
    assert deep["details"]["category"] == "test-artifact" and deep["details"]["holder"] == "criterion"
    assert deep["related"]["location"]["row"] == 14
    # Named where it is called: the call is the accumulation.
    passed = items["test_criterion_passed_in"]
    assert (passed["location"], passed["details"]["holder"]) == ({"row": 19, "column": 9}, "criterion")
    listed = items["test_callback_mock_in_a_list"]
    assert (listed["location"]["row"], listed["details"]["holder"], listed["details"]["category"]) == (
        52, "self.callbacks", "test-artifact")
    assert listed["message"].startswith(
        "a `Mock`'s `call_args_list` (a Mock in `self.callbacks` recorded the call arguments) keeps the autograd graph")
