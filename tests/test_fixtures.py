"""Every fixture produces exactly its expected findings and fix outputs."""

from __future__ import annotations

import pytest

from harness import expected_paths, fixture_cases, run_fixture
from gradlint.config import Settings
from gradlint.engine import LintSettings, fix_source, lint_source, parse

CASES = fixture_cases()


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture(path):
    run = run_fixture(path)
    expected, fixed, unsafe = expected_paths(path)
    assert expected.exists(), f"{expected.name} is missing: run tests/update_fixtures.py"
    assert run.findings == expected.read_text(encoding="utf-8").splitlines()

    want_fixed = fixed.read_text(encoding="utf-8") if fixed.exists() else run.source
    assert run.fixed == want_fixed
    want_unsafe = unsafe.read_text(encoding="utf-8") if unsafe.exists() else want_fixed
    assert run.unsafe_fixed == want_unsafe

    settings = Settings()
    codes, options = settings.codes_for(path)
    lint_settings = LintSettings(codes, options)
    before = lint_source(run.source, str(path), lint_settings).findings
    for output, unsafe_mode in ((run.fixed, False), (run.unsafe_fixed, True)):
        parse(output)
        # idempotent: fixing the fixed output changes nothing
        assert fix_source(output, str(path), lint_settings, unsafe=unsafe_mode).source == output
        # no new finding: what is left was there before (same codes, no more of each)
        after = lint_source(output, str(path), lint_settings).findings
        for code in {f.code for f in after}:
            assert sum(f.code == code for f in after) <= sum(f.code == code for f in before), code


def test_every_rule_has_fixtures():
    from gradlint.rules import all_rules

    dirs = {p.parent.name for p in CASES}
    missing = sorted(set(all_rules()) - dirs)
    assert not missing, f"rules without fixtures: {missing}"


def test_fixture_expectations_have_no_orphans():
    from harness import FIXTURES

    for extra in FIXTURES.glob("GL*/*"):
        if extra.suffix == ".expected" or extra.name.endswith((".fixed.py", ".unsafe.py")):
            stem = extra.name.split(".")[0]
            assert (extra.parent / f"{stem}.py").exists(), f"{extra} has no source fixture"
