"""benchmarks/speed_diff.py and speed_editor.py keep the interface benchmarks/run.py reads:
``--python``, ``--repeat``, and the figures as one JSON object on the last line."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_speed_diff_prints_its_figures_last(capsys):
    speed_diff = _script("speed_diff")
    assert speed_diff.legacy_file(20_000).count("\n") == 20_000
    assert "target: <= 10 s" in speed_diff.__doc__.lower()
    assert speed_diff.main(["--python", sys.executable, "--repeat", "1", "--lines", "120"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    figures = json.loads(last)
    assert sorted(figures) == ["diff 0k lines cpu s", "diff 0k lines hunks", "diff 0k lines peak MB", "diff 0k lines wall s"]
    assert figures["diff 0k lines hunks"] >= 1 and figures["diff 0k lines wall s"] > 0 and figures["diff 0k lines peak MB"] > 0


@pytest.mark.slow
def test_speed_editor_prints_its_figures_last(capsys):
    pytest.importorskip("pygls")
    speed_editor = _script("speed_editor")
    assert speed_editor.main(["--python", sys.executable, "--repeat", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.splitlines()[-1])
    whats = (
        "didChange",
        "codeAction max",
        "fixAll",
        "codeAction first, no resolve, applyEdit",
        "codeAction max, no resolve, applyEdit",
        "codeAction first, no resolve nor applyEdit",
    )
    assert sorted(figures) == sorted(f"editor {label} {what} cpu s" for label in ("plain", "async=") for what in whats)
    assert all(value > 0 for value in figures.values())
    for label in ("plain", "async="):
        # the command instead of the edit: the first code action does not compute a fix all
        assert figures[f"editor {label} codeAction first, no resolve, applyEdit cpu s"] < figures[f"editor {label} codeAction first, no resolve nor applyEdit cpu s"]
