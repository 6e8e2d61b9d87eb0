"""Run the migrated legacy files under torch: same numbers as the expected output and
as a hand-modernised reference, no graph in evaluation, no deprecation warning.

Each fixture runs in a fresh process (``migrate_scenarios.py``): torch emits
several deprecation warnings once per process, so a warning seen earlier in
the test session would otherwise hide one the migrated code still causes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness import MIGRATE_FIXTURES, migrate_expected_paths, run_migration
from gradlint import catalog
from gradlint.legacy_syntax import rename_async_arguments

pytest.importorskip("torch")

SCENARIOS = Path(__file__).resolve().parent / "migrate_scenarios.py"
INDEX_ERROR = "IndexError: invalid index of a 0-dim tensor"

needs_gl202 = pytest.mark.skipif(
    catalog.get("GL202") is None,
    reason="GL202 (in-place updates through .data, issue 4) is not in this build; "
    "migrate applies it as soon as the rule exists",
)
CASES = ["mnist_train", "validate", pytest.param("manual_sgd", marks=needs_gl202)]
ALL_CASES = ["mnist_train", "validate", "manual_sgd"]
EVALUATING = ["mnist_train", "validate"]

_outcomes: dict = {}


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    def get(case: str) -> dict:
        if case not in _outcomes:
            path = MIGRATE_FIXTURES / f"{case}.py"
            work = tmp_path_factory.mktemp(case)
            original = path.read_text(encoding="utf-8")
            versions = {
                "migrated": run_migration(path).source,
                "expected": migrate_expected_paths(path)[0].read_text(encoding="utf-8"),
                # As written, but with `async=` renamed: otherwise no Python 3.7+ imports it at all.
                "legacy": rename_async_arguments(original)[0],
            }
            args = []
            for name, text in versions.items():
                (work / f"{name}.py").write_text(text, encoding="utf-8")
                args.append(f"{name}={work / f'{name}.py'}")
            out = work / "result.json"
            proc = subprocess.run(
                [sys.executable, str(SCENARIOS), case, str(out), *args], capture_output=True, text=True, timeout=300
            )
            assert proc.returncode == 0, proc.stderr
            _outcomes[case] = json.loads(out.read_text(encoding="utf-8"))
        return _outcomes[case]

    return get


@pytest.mark.parametrize("case", ALL_CASES)
def test_migrated_file_runs_and_computes_what_the_expected_output_computes(outcome, case):
    result = outcome(case)
    migrated, expected = result["migrated"], result["expected"]
    assert migrated["errors"] == {} and expected["errors"] == {}
    assert migrated["values"] == expected["values"]
    assert migrated["values"], "the scenario computed nothing"


@pytest.mark.parametrize("case", ALL_CASES)
def test_migrated_file_matches_a_hand_modernised_reference(outcome, case):
    # The reference uses torch.optim / torch.no_grad / .item() as today's docs do;
    # equality is exact (fact 11: the `.data` update and the optimizer are bitwise equal).
    result = outcome(case)
    assert result["reference"]["errors"] == {}
    assert result["migrated"]["values"] == result["reference"]["values"]


@pytest.mark.parametrize("case", EVALUATING)
def test_migrated_evaluation_builds_no_graph_where_the_legacy_one_did(outcome, case):
    result = outcome(case)
    assert result["migrated"]["eval_graph"] and not any(result["migrated"]["eval_graph"])
    assert not any(result["reference"]["eval_graph"])
    # `volatile=True` is ignored today: the legacy evaluation records a graph.
    assert result["legacy"]["eval_graph"] and all(result["legacy"]["eval_graph"])


@pytest.mark.parametrize("case", CASES)
def test_migrated_file_emits_no_warning(outcome, case):
    assert outcome(case)["migrated"]["warnings"] == []


@pytest.mark.parametrize("case", EVALUATING)
def test_legacy_original_fails_on_todays_torch(outcome, case):
    legacy = outcome(case)["legacy"]
    assert legacy["errors"], "the legacy file ran: the fixture no longer shows what migrate repairs"
    assert all(e.startswith(INDEX_ERROR) for e in legacy["errors"].values()), legacy["errors"]


def test_legacy_validate_warns_that_volatile_is_gone(outcome):
    warnings = outcome("validate")["legacy"]["warnings"]
    assert any("volatile was removed and now has no effect" in w for w in warnings), warnings


def test_legacy_data_updates_compute_bitwise_what_the_migrated_ones_do(outcome):
    result = outcome("manual_sgd")
    legacy, migrated = result["legacy"], result["migrated"]
    assert legacy["errors"]["history"].startswith(INDEX_ERROR)
    step = "one sgd_step + zero_grad"
    assert step not in legacy["errors"]
    assert legacy["values"][step] == migrated["values"][step]
