"""benchmarks/recall/guard_sites.py: the guard's runtime-only findings as recall sites that score.py loads."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECALL = ROOT / "benchmarks" / "recall"
sys.path.insert(0, str(RECALL))

import guard_sites  # noqa: E402
import score  # noqa: E402

SEEDED = (ROOT / "tests" / "guard_suites" / "seeded_suite.py").read_text()


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_training.py").write_text(SEEDED)
    (tmp_path / "tests" / "models.py").write_text((ROOT / "tests" / "guard_suites" / "models.py").read_text())
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "remote", "add", "origin", "https://github.com/example/trainer.git")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "start")
    # The report of `pytest --gradlint-guard-report`, written from another checkout path (CI).
    row = SEEDED.count("\n", 0, SEEDED.index("fn(batch)")) + 1
    column = SEEDED.index("fn(batch)") - SEEDED.rfind("\n", 0, SEEDED.index("fn(batch)"))
    report = [{
        "cell": None, "code": "GL101", "filename": "tests/test_training.py", "fix": None,
        "location": {"row": row, "column": column}, "end_location": {"row": row, "column": column + 9},
        "message": "this forward recorded an autograd graph that was freed without any backward running through it",
        "noqa_row": row, "url": "", "test": "tests/test_training.py::test_prediction_through_a_callable",
        "count": 1, "path": "/ci/checkout/tests/test_training.py", "project_path": "tests/test_training.py",
    }, {
        # Confirmed by a static rule: not a new site.
        "cell": None, "code": "GL301", "filename": "tests/test_training.py", "fix": None,
        "location": {"row": SEEDED.count("\n", 0, SEEDED.index("total += loss")) + 1, "column": 9},
        "message": "kept", "noqa_row": 1, "url": "", "test": "tests/test_training.py::test_validation_loss_accumulated",
        "count": 1, "path": "/ci/checkout/tests/test_training.py", "project_path": "tests/test_training.py",
    }]
    (tmp_path / "guard.json").write_text(json.dumps(report))
    return tmp_path, row


def test_runtime_only_findings_become_sites_that_score_loads(checkout, tmp_path_factory):
    root, row = checkout
    out = tmp_path_factory.mktemp("out") / "guard_sites.toml"
    assert guard_sites.main([str(root / "guard.json"), "--root", str(root), "--out", str(out)]) == 0
    (site,) = score.load_sites(out)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    assert (site.id, site.project, site.repository, site.before, site.fix) == (
        f"guard-trainer-test_training-{row}-gl101", "example/trainer", "https://github.com/example/trainer.git", head, "")
    assert (site.path, site.lines, site.expect, site.cause) == ("tests/test_training.py", (row,), "GL101", "runtime-only")
    assert site.sha256 == hashlib.sha256((root / "tests" / "test_training.py").read_bytes()).hexdigest()
    assert site.description.startswith("this forward recorded an autograd graph")
    # score.py reads it from the checkout as a mirror, pinned by the commit and the sha256.
    assert score.Sources([root.parent], False, root / "work").get(
        score.Site(**{**site.__dict__, "repository": f"https://github.com/x/{root.name}"})
    ) == (root / "tests" / "test_training.py").read_bytes()


def test_an_uncommitted_edit_leaves_the_site_out(checkout, capsys):
    root, _ = checkout
    (root / "tests" / "test_training.py").write_text(SEEDED + "\n# edited\n")
    assert guard_sites.main([str(root / "guard.json"), "--root", str(root)]) == 0
    captured = capsys.readouterr()
    assert "[[site]]" not in captured.out
    assert "left out: tests/test_training.py differs from commit" in captured.err
