"""The oracle's trainer and holder families (tests/oracle/escape.py): GL101/GL001
guards around a method of the file's classes that trains, and around forwards whose
outputs are kept where a later backward finds them.

Every program is reported (the family tests the fix, not silence); none gets a safe
guard fix in either tier, and under torch no safe fix changes what any of them does.
"""

from __future__ import annotations

import pytest

from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.options import RuleOptions

from oracle import runner
from oracle.escape import CLASS_HOLDERS, EFFECTS, FUNCTION_HOLDERS, KNOWN_BY, escape_family

PROGRAMS = list(escape_family())


def settings(preview: bool = False) -> LintSettings:
    return LintSettings(runner.all_codes(), RuleOptions(preview=preview))


def test_the_families_cover_every_shape():
    families = {p.family for p in PROGRAMS}
    for known in KNOWN_BY:
        for effect in EFFECTS:
            assert f"trainer known={known} effect={effect} method=inherited" in families
    for holder in [*CLASS_HOLDERS, *FUNCTION_HOLDERS]:
        assert {p.rule for p in PROGRAMS if p.family.startswith(f"holder kind={holder} ")} == {"GL101", "GL001"}
    assert len(PROGRAMS) == 210


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_reported_with_an_unsafe_guard_fix_only(program):
    findings = [f for f in lint_source(program.source, f"{program.name}.py", settings()).findings if f.code == program.rule]
    assert len(findings) == 1, program.name
    if program.rule == "GL001" and program.family.startswith("trainer "):
        # the adapter trains on other values: no decorator (migrate wraps the input's flow)
        assert findings[0].fix is None
    else:
        assert findings[0].fix is not None and findings[0].fix.applicability == "unsafe"
    for preview in (False, True):
        fixed = fix_source(program.source, f"{program.name}.py", settings(preview), unsafe=False).source
        assert fixed.count("no_grad") == program.source.count("no_grad"), preview


def test_safe_fixes_keep_behaviour():
    pytest.importorskip("torch")
    judged = runner.oracle(PROGRAMS)
    assert not runner.unsafe_judgements(judged), "\n".join(map(runner.describe, runner.unsafe_judgements(judged)))
    ran = [j for j in judged if j.version == "unsafe" and j.verdict != "no-fix"]
    assert ran and all(j.verdict != "not-run" for j in ran)
    # migrate guards only what flows from the volatile input: the adaptation runs as in 0.3
    migrated = [j for j in judged if j.version == "migrated" and j.program.rule == "GL001" and j.program.family.startswith("trainer ")]
    assert len(migrated) == 60 and {j.verdict for j in migrated} == {"same"}
