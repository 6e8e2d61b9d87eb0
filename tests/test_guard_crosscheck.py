"""`gradlint check --guard-report PATH`: static findings confirmed at run time, and the ones only the guard saw."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.cli import main

SEEDED = (Path(__file__).resolve().parent / "guard_suites" / "seeded_suite.py").read_text()


def at(text: str):
    offset = SEEDED.index(text)
    return SEEDED.count("\n", 0, offset) + 1, offset - (SEEDED.rfind("\n", 0, offset) + 1) + 1


def item(code, text, test, filename="test_seeded.py", width=8):
    row, column = at(text)
    return {
        "cell": None,
        "code": code,
        "end_location": {"row": row, "column": column + width},
        "filename": filename,
        "fix": None,
        "location": {"row": row, "column": column},
        "message": f"{code} seen at run time",
        "noqa_row": row,
        "url": f"https://gradlint.readthedocs.io/en/latest/rules/{code}/",
        "test": f"tests/test_seeded.py::{test}",
    }


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_seeded.py").write_text(SEEDED)
    report = [
        item("GL101", "model(x)\n        correct", "test_eval_without_no_grad"),
        item("GL301", "total += loss", "test_validation_loss_accumulated", width=13),
        item("GL301", "total += loss", "test_other"),
        # No static rule knows that `fn` is a model in eval mode.
        item("GL101", "fn(batch)", "test_prediction_through_a_callable", width=9),
        # A file that is not checked: left out.
        item("GL101", "fn(batch)", "test_elsewhere", filename="elsewhere.py"),
    ]
    (tmp_path / "guard.json").write_text(json.dumps(report))
    return tmp_path


def run(*args):
    # GL301 is a preview rule: the cross-check of its static findings needs the tier on.
    return CliRunner().invoke(main, ["check", "--no-cache", "--preview", *args])


def test_concise_marks_confirmed_and_lists_runtime_only(project):
    result = run("--output-format", "concise", "--guard-report", "guard.json", "test_seeded.py")
    assert result.exit_code == 1, (result.stdout, result.stderr, result.exception)
    lines = result.stdout.splitlines()
    row, col = at("model(x)\n        correct")
    assert lines[0].startswith(f"test_seeded.py:{row}:{col}: GL101 [*] `model` is in eval mode")
    assert lines[0].endswith("run it under `torch.no_grad()`; confirmed by tests/test_seeded.py::test_eval_without_no_grad")
    row, col = at("total += loss")
    assert lines[1].startswith(f"test_seeded.py:{row}:{col}: GL301 [*] `total += loss` keeps")
    assert lines[1].endswith(
        "; confirmed by tests/test_seeded.py::test_other and 1 more test"
    )
    # Static findings that the report does not mention are left as they were.
    assert [line.split()[1] for line in lines[2:7]] == ["GL301", "GL201", "GL202", "GL101", "GL105"]
    assert not any("confirmed" in line for line in lines[2:7])
    row, col = at("fn(batch)")
    assert lines[5] == (
        f"test_seeded.py:{row}:{col}: GL101 seen at run time by tests/test_seeded.py::test_prediction_through_a_callable, "
        "by no static rule: GL101 seen at run time"
    )
    assert lines[7:] == ["Found 7 problems (3 fixable with --fix).", "2 more fixable with --fix --unsafe-fixes."]


def test_json_carries_the_mark_and_the_runtime_finding(project):
    result = run("--output-format", "json", "--guard-report", "guard.json", "test_seeded.py")
    assert result.exit_code == 1
    items = json.loads(result.stdout)
    confirmed = [i for i in items if "; confirmed by " in i["message"]]
    assert [(i["code"], i["location"]["row"]) for i in confirmed] == [
        ("GL101", at("model(x)\n        correct")[0]),
        ("GL301", at("total += loss")[0]),
    ]
    runtime = [i for i in items if i["message"].startswith("seen at run time")]
    row, col = at("fn(batch)")
    assert runtime == [
        {
            "cell": None,
            "code": "GL101",
            "end_location": {"row": row, "column": col + 9},
            "filename": "test_seeded.py",
            "fix": None,
            "location": {"row": row, "column": col},
            "message": "seen at run time by tests/test_seeded.py::test_prediction_through_a_callable, by no static rule: "
            "GL101 seen at run time",
            "noqa_row": row,
            "url": "https://gradlint.readthedocs.io/en/latest/rules/GL101/",
        }
    ]


def test_full_quotes_the_source_of_a_runtime_only_finding(project):
    result = run("--output-format", "full", "--guard-report", "guard.json", "test_seeded.py")
    assert result.exit_code == 1
    row, col = at("fn(batch)")
    text = result.stdout
    assert "; confirmed by tests/test_seeded.py::test_eval_without_no_grad\n" in text
    block = text[text.index("GL101 seen at run time by") :]
    assert block.splitlines()[1:5] == [
        f" --> test_seeded.py:{row}:{col}",
        "   |",
        f"{row - 1} | def predict(fn, batch):",
        f"{row} |     return fn(batch)",
    ]
    assert block.splitlines()[5] == "   |            ^^^^^^^^^"


def test_without_the_report_nothing_changes(project):
    result = run("--output-format", "concise", "test_seeded.py")
    assert "confirmed by" not in result.stdout and "seen at run time" not in result.stdout


def test_a_clean_file_with_a_runtime_finding_fails(project):
    # Nothing here that a static rule reports: no eval(), no function named for inference,
    # and the loop's losses are differentiated.
    clean = (
        SEEDED.replace("model.eval()", "pass")
        .replace("total += loss", "loss.backward()\n        total += 1")
        .replace("def evaluate(", "def count_correct(")
        .replace("evaluate(make_model())", "count_correct(make_model())")
    )
    (project / "elsewhere.py").write_text(clean)
    report = [item("GL101", "fn(batch)", "test_x", filename="elsewhere.py", width=9)]
    (project / "guard.json").write_text(json.dumps(report))
    result = run("--output-format", "concise", "--select", "GL101", "--guard-report", "guard.json", "elsewhere.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "Found 1 problem."


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{not json", "cannot read guard.json"),
        ('{"code": "GL101"}', "guard.json is not a report written by `pytest --gradlint-guard-report`"),
        ('[{"code": "GL101"}]', "guard.json is not a report written by `pytest --gradlint-guard-report`"),
    ],
)
def test_a_bad_report_is_a_usage_error(project, content, reason):
    (project / "guard.json").write_text(content)
    result = run("--guard-report", "guard.json", "test_seeded.py")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --guard-report: {reason}")


def test_missing_report_is_a_usage_error(project):
    result = run("--guard-report", "missing.json", "test_seeded.py")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --guard-report: cannot read missing.json: ")


def test_cross_check_does_not_import_torch(project):
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom gradlint.cli import main\n"
        "r = CliRunner().invoke(main, ['check', '--no-cache', '--guard-report', 'guard.json', 'test_seeded.py'])\n"
        "sys.exit(3 if 'torch' in sys.modules else r.exit_code)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=project).returncode == 1


def test_a_report_written_in_another_checkout_matches_by_project_path(project):
    (project / "tests").mkdir()
    (project / "tests" / "test_seeded.py").write_text(SEEDED)
    moved = item("GL101", "model(x)\n        correct", "test_eval_without_no_grad")
    moved.update(path="/ci/build/checkout/tests/test_seeded.py", filename="test_seeded.py",
                 project_path="tests/test_seeded.py")
    (project / "guard.json").write_text(json.dumps([moved]))
    result = run("--output-format", "concise", "--guard-report", "guard.json", "tests/test_seeded.py", "test_seeded.py")
    confirmed = [line for line in result.stdout.splitlines() if "; confirmed by " in line]
    row, col = at("model(x)\n        correct")
    assert [line.split(": ")[0] for line in confirmed] == [f"tests/test_seeded.py:{row}:{col}"]
    assert result.stderr == ""


def test_findings_matching_no_checked_file_are_named_on_stderr(project):
    result = run("--output-format", "concise", "--guard-report", "guard.json", "test_seeded.py")
    assert result.stderr == "warning: --guard-report: 1 guard finding matches no file of this run: elsewhere.py\n"


def test_runtime_only_counts_are_summed_over_tests(project):
    def gl101(test, count, saved):
        f = item("GL101", "fn(batch)", test, width=9)
        times = "once" if count == 1 else f"{count} times"
        f.update(count=count, details={"saved_bytes": saved},
                 message=f"this forward recorded an autograd graph that was freed without any backward running "
                         f"through it ({times}; {saved} B saved for backward in all, parameters not counted): run it "
                         "under `torch.no_grad()`")
        return f

    (project / "guard.json").write_text(json.dumps([gl101("test_a", 2, 768), gl101("test_b", 3, 100)]))
    result = run("--output-format", "concise", "--guard-report", "guard.json", "test_seeded.py")
    (line,) = [line for line in result.stdout.splitlines() if "seen at run time" in line]
    assert line.endswith(
        "GL101 seen at run time by tests/test_seeded.py::test_a and 1 more test, by no static rule: this forward "
        "recorded an autograd graph that was freed without any backward running through it (5 times over 2 tests; "
        "868 B saved for backward in all, parameters not counted): run it under `torch.no_grad()`"
    )


def test_mock_artifacts_are_grouped_apart_and_not_counted(project):
    artifact = item("GL301", "total += loss", "test_logging", width=13)
    artifact["details"] = {"holder": "logger", "kind": "mock", "category": "test-artifact"}
    (project / "guard.json").write_text(json.dumps([artifact]))
    result = run("--output-format", "concise", "--guard-report", "guard.json", "test_seeded.py")
    assert "confirmed" not in result.stdout and "seen at run time" not in result.stdout
    row = at("total += loss")[0]
    assert result.stderr == (
        "warning: --guard-report: 1 test artifact (a Mock recorded the arguments; not defects of the code under "
        f"test) left out: test_seeded.py:{row}\n"
    )
