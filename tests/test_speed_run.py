"""benchmarks/run.py --speed: which speed scripts run on which side, and the table of
figures (no timing: the scripts here are stand-ins that print fixed figures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from harness import ROOT


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


FIGURES = '''\
import argparse, json
p = argparse.ArgumentParser()
p.add_argument("--python")
p.add_argument("--repeat", type=int)
a = p.parse_args()
print("measuring with", a.python, a.repeat)
print(json.dumps({figures}))
'''


def test_discovery_uses_each_sides_script_or_the_other_trees(run, tmp_path):
    head, base = tmp_path / "head", tmp_path / "base"
    for name in ("speed_formats.py", "speed_startup.py"):
        _script(head / "benchmarks" / name, "")
    _script(base / "benchmarks" / "speed_formats.py", "")
    _script(base / "benchmarks" / "speed_old.py", "")
    _script(head / "benchmarks" / "output_formats.py", "")  # not a speed script
    plans = run.discover_speed_scripts(head, base)
    assert [(p.topic, p.head, p.base) for p in plans] == [
        ("formats", head / "benchmarks" / "speed_formats.py", base / "benchmarks" / "speed_formats.py"),
        ("old", base / "benchmarks" / "speed_old.py", base / "benchmarks" / "speed_old.py"),
        ("startup", head / "benchmarks" / "speed_startup.py", head / "benchmarks" / "speed_startup.py"),
    ]


def test_this_tree_has_a_speed_script_following_the_interface(run):
    plans = run.discover_speed_scripts(ROOT, None)
    assert "formats" in [p.topic for p in plans]
    text = (ROOT / "benchmarks" / "speed_formats.py").read_text()
    assert "--python" in text and "--repeat" in text and "target: <= 1.2" in text


@pytest.mark.parametrize(
    "stdout, expected",
    [
        ('one\ntwo\n{"a s": 1.5, "b": 2}\n', {"a s": 1.5, "b": 2}),
        ('{"a": 1}\n\n  \n', {"a": 1}),
        ('{"a": 1}\nlast words\n', None),
        ("[1, 2]\n", None),
        ("", None),
    ],
)
def test_the_figures_are_the_last_line_as_a_json_object(run, stdout, expected):
    assert run.last_json(stdout) == expected


def test_rows_ratio_and_na(run):
    plans = [run.ScriptPlan("formats", Path("h"), Path("b")), run.ScriptPlan("diff", Path("h2"), Path("h2"))]
    results = {
        ("formats", "head"): run.ScriptResult({"json / concise CPU": 1.1, "new figure s": 0.5, "files": 272}),
        ("formats", "base"): run.ScriptResult({"json / concise CPU": 1.28, "files": 272, "gone s": 3.0}),
        ("diff", "head"): run.ScriptResult({"diff 20k lines wall s": 8.0, "skipped": None}),
        ("diff", "base"): run.ScriptResult(None, "exit 1"),
    }
    assert run.speed_rows(plans, results) == [
        ("formats", "json / concise CPU", "1.10", "1.28", "0.859"),
        ("formats", "new figure s", "0.500", "n/a", "n/a"),
        ("formats", "files", "272", "272", "1.000"),
        ("formats", "gone s", "n/a", "3.00", "n/a"),
        ("diff", "diff 20k lines wall s", "8.00", "n/a", "n/a"),
        ("diff", "skipped", "n/a", "n/a", "n/a"),
    ]
    both_failed = {("diff", "head"): run.ScriptResult(None, "exit 2"), ("diff", "base"): run.ScriptResult(None, "no JSON line at the end")}
    assert run.speed_rows(plans[1:], both_failed) == [("diff", "(no figures)", "exit 2", "no JSON line at the end", "n/a")]


def test_ratio_needs_two_numbers(run):
    assert run.figure_ratio(2.0, 4) == 0.5
    assert run.figure_ratio(1.0, 0) is None
    assert run.figure_ratio(True, 1.0) is None
    assert run.figure_ratio("fast", 1.0) is None
    assert run.figure_ratio(float("inf"), 1.0) is None
    assert [run.format_figure(v) for v in (None, 1234.5, 17.034, 0.04567, 3, "over 150 s")] == ["n/a", "1234.5", "17.03", "0.046", "3", "over 150 s"]


def test_render_speed_table(run):
    lines = run.render_speed([("formats", "json / concise CPU", "1.10", "1.28", "0.859")], "cc7de17", ["a note"])
    assert lines == [
        "| script | figure | this tree | cc7de17 | this / cc7de17 |",
        "| --- | --- | ---: | ---: | ---: |",
        "| `speed_formats.py` | json / concise CPU | 1.10 | 1.28 | 0.859 |",
        "",
        "- a note",
    ]


def test_scripts_run_with_the_interpreter_and_repeat_given(run, tmp_path, capsys):
    good = _script(tmp_path / "benchmarks" / "speed_good.py", FIGURES.format(figures='{"x s": 1.25}'))
    bad = _script(tmp_path / "benchmarks" / "speed_bad.py", "import sys\nprint('no figures')\nsys.exit(3)\n")
    result = run.run_speed_script(good, Path("/some/python"), 5, 60, "good")
    assert result.figures == {"x s": 1.25} and result.note == ""
    assert "[good] measuring with /some/python 5" in capsys.readouterr().out
    failed = run.run_speed_script(bad, Path(sys.executable), 1, 60, "bad")
    assert failed.figures is None and failed.note == "exit 3"
    slow = _script(tmp_path / "benchmarks" / "speed_slow.py", "import time\ntime.sleep(30)\n")
    stopped = run.run_speed_script(slow, Path(sys.executable), 1, 0.5, "slow")
    assert stopped.figures is None and stopped.note.startswith("exit -") and "killed after" in stopped.note


def test_speed_figures_json_keys_are_figure_names(run, tmp_path):
    # A figure a script printed as null (skipped) is "n/a", not 0.
    script = _script(tmp_path / "benchmarks" / "speed_n.py", FIGURES.format(figures=repr({"a s": None, "b s": 2.0})))
    result = run.run_speed_script(script, Path(sys.executable), 1, 60, "n")
    rows = run.speed_rows([run.ScriptPlan("n", script, script)], {("n", "head"): result, ("n", "base"): result})
    assert rows == [("n", "a s", "n/a", "n/a", "n/a"), ("n", "b s", "2.00", "2.00", "1.000")]
