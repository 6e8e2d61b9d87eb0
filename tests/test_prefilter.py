"""The trigger prefilter never skips a file with findings, and every rule's triggers earn their place.

The engine does not parse a file that contains none of the enabled rules'
trigger substrings. These tests run each rule with and without that filter
over every file under fixtures/ (sources and expected fix outputs) and every
catalog example, and require the same findings: a rule added without the
triggers its own fixtures need fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from harness import FIXTURES, settings_for
from gradlint import catalog
from gradlint.engine import LintSettings, lint_source, needs_parse, triggered_rules
from gradlint.rules import all_rules


def _corpus() -> List[Tuple[str, str]]:
    """(name, source) of every fixture file and catalog example."""
    out = [(str(p.relative_to(FIXTURES)), p.read_text(encoding="utf-8")) for p in sorted(FIXTURES.rglob("*.py"))]
    for doc in catalog.load().values():
        for n, ex in enumerate(doc.examples):
            out.append((f"{doc.code} example {n} bad", ex.bad))
            out.append((f"{doc.code} example {n} good", ex.good))
    return out


CORPUS = _corpus()
RULES = sorted(all_rules())


def _findings(source: str, codes, prefilter: bool) -> List[Tuple[str, Tuple[int, int]]]:
    result = lint_source(source, "case.py", LintSettings(frozenset(codes)), prefilter=prefilter)
    return [(f.code, f.start) for f in result.findings]


@pytest.fixture(scope="module")
def unfiltered() -> Dict[Tuple[str, str], list]:
    """Each rule's findings on each corpus file, with the prefilter off."""
    return {(code, name): _findings(src, [code], prefilter=False) for code in RULES for name, src in CORPUS}


@pytest.mark.parametrize("code", RULES)
def test_prefilter_never_skips_a_file_with_findings(code, unfiltered):
    missed = []
    for name, src in CORPUS:
        want = unfiltered[(code, name)]
        if _findings(src, [code], prefilter=True) != want:
            missed.append(f"{name}: {want}")
    assert not missed, f"{code}'s triggers {all_rules()[code].triggers} make the engine skip files it has findings in: {missed}"


def test_prefilter_with_all_rules_enabled():
    codes = frozenset(RULES) | {catalog.PARSE_ERROR}
    for name, src in CORPUS:
        assert _findings(src, codes, True) == _findings(src, codes, False), name


@pytest.mark.parametrize("code", RULES)
def test_every_trigger_is_needed_by_a_case(code, unfiltered):
    """A trigger that no fixture or example with findings contains is a typo, or
    an untested way for the rule to fire: give it a fixture."""
    triggers = all_rules()[code].triggers
    assert isinstance(triggers, tuple) and triggers, f"{code}: triggers must be a non-empty tuple"
    assert all(isinstance(t, str) and t.strip() == t and t for t in triggers), f"{code}: bad trigger in {triggers}"
    firing = [src for name, src in CORPUS if unfiltered[(code, name)]]
    assert firing, f"{code} has no finding in any fixture or example, so its triggers are untested"
    unused = [t for t in triggers if not any(t in src for src in firing)]
    assert not unused, f"{code}: no case with findings contains the trigger(s) {unused}"


def test_a_rule_without_adequate_triggers_is_caught(monkeypatch, unfiltered):
    # What the tests above would say about GL003 declaring a trigger its fixtures lack.
    rule = all_rules()["GL003"]
    monkeypatch.setattr(rule, "triggers", (".data [",))
    skipped = [name for name, src in CORPUS if unfiltered[("GL003", name)] and not _findings(src, ["GL003"], True)]
    assert "GL003/logging_losses.py" in skipped and "GL003 example 0 bad" in skipped


def test_untriggered_files_are_not_parsed(monkeypatch):
    import gradlint.engine as engine

    def fail(source):
        raise AssertionError("parsed")

    monkeypatch.setattr(engine, "parse", fail)
    src = "import torch\nx = torch.zeros(3)\n"
    assert lint_source(src, "a.py", settings_for(["ALL"])).findings == []
    assert not needs_parse(src, frozenset(RULES))
    assert needs_parse("v = Variable(x)\n", frozenset(RULES))
    assert [r.code for r in triggered_rules("v = Variable(x, volatile=True)\n", frozenset(RULES))] == ["GL001", "GL002"]


def test_file_level_noqa_is_honoured_before_parsing():
    codes = frozenset(RULES)
    assert not needs_parse("# gradlint: noqa\nv = Variable(x)\n", codes)
    assert not needs_parse("# gradlint: noqa: GL001, GL002\nv = Variable(x)\n", codes)
    assert needs_parse("# gradlint: noqa: GL001\nv = Variable(x)\n", codes)
