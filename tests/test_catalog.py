"""The catalog is the single source of rule metadata: check it against the code and its own examples."""

from __future__ import annotations

import functools
import re

import pytest

from gradlint import catalog
from gradlint.catalog import CatalogError, parse_entry
from gradlint.engine import PARSE_ERROR, LintSettings, fix_source, lint_source, parse
from gradlint.rules import all_rules

DOCS = list(catalog.load().values())


def test_catalog_and_rule_modules_match_one_to_one():
    # GL000 is the engine's own: a file that does not parse; the directive codes
    # come from the other findings, not from a rule module.
    codes_with_code = set(all_rules())
    assert codes_with_code == set(catalog.load()) - {PARSE_ERROR} - catalog.DIRECTIVE_CODES


def test_every_rule_module_declares_triggers():
    for code, cls in all_rules().items():
        assert cls.triggers and all(isinstance(t, str) and t for t in cls.triggers), code


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.code)
def test_entry_has_what_docs_need(doc):
    assert doc.why and doc.fix_safety and doc.references and doc.torch
    assert doc.summary and "\n" not in doc.summary
    if doc.code != PARSE_ERROR and doc.code not in catalog.DIRECTIVE_CODES:
        assert doc.probe is not None, f"{doc.code} has no runtime probe"


EXAMPLES = [(doc, i, ex) for doc in DOCS for i, ex in enumerate(doc.examples)]


@pytest.mark.parametrize("doc,index,example", EXAMPLES, ids=[f"{d.code}-{i}" for d, i, _ in EXAMPLES])
def test_example_findings_and_fix(doc, index, example):
    # GL000 is reported only for files some rule needs to parse, and a directive
    # is unused only against the codes checked: let every rule look.
    every = doc.code == PARSE_ERROR or doc.code in catalog.DIRECTIVE_CODES
    settings = LintSettings(frozenset(catalog.load()) if every else frozenset({doc.code}))
    found = [(f.start[0], f.start[1] + 1) for f in lint_source(example.bad, "example.py", settings).findings]
    assert found == list(example.findings)
    assert [f for f in lint_source(example.good, "example.py", settings).findings] == []
    if doc.fix != "none" and example.fixable and example.findings:
        result = fix_source(example.bad, "example.py", settings, unsafe=True)
        assert result.source == example.good
        parse(result.source)
    elif example.findings:
        assert fix_source(example.bad, "example.py", settings, unsafe=True).source == example.bad


def test_messages_format_with_the_fields_rules_pass():
    # Every example's findings rendered a message; a template/field mismatch raises.
    for doc in DOCS:
        for ex in doc.examples:
            for f in lint_source(ex.bad, "x.py", LintSettings(frozenset({doc.code}))).findings:
                assert f.message and "{" not in f.message.replace("{{", "")


def _entry(**changes):
    base = {
        "code": "GL999",
        "name": "some-rule",
        "summary": "s",
        "message": "m",
        "default": True,
        "fix": "none",
        "fix_safety": "n/a",
        "why": "w",
        "torch": ">=2",
        "references": [],
        "examples": [{"bad": "x", "good": "y", "findings": []}],
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


@pytest.mark.parametrize(
    "changes,error",
    [
        ({"code": "X1"}, "code 'X1' is not GLnnn"),
        ({"name": "Some_Rule"}, "is not kebab-case"),
        ({"fix": "maybe"}, "fix must be one of safe, unsafe, varies, none"),
        ({"fix": "safe"}, "a fixable rule needs 'fix_title'"),
        ({"why": None}, "missing key 'why'"),
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"examples": [{"bad": "x", "good": "y", "findings": ["3"]}]}, "is not 'row:column'"),
        ({"examples": []}, "at least one example"),
        ({"verify": [{"claim": "records-graph", "region": "nowhere"}]}, "verify[0]: 'region' must be one of"),
        ({"verify": ["raises"]}, "verify[0]: must be a table"),
        ({"fix": "unsafe", "fix_title": "t", "migrate": "always"}, "migrate must be one of safe, trusted, report"),
        ({"fix": "safe", "fix_title": "t", "migrate": "report"}, "migrate = 'report' is for a rule without a fix"),
        ({"fix": "none", "migrate": "safe"}, "migrate = 'safe' needs a rule with a fix"),
        ({"fix": "safe", "fix_title": "t", "migrate": "trusted", "migrate_trust": "w"}, "needs a rule whose fixes can be unsafe"),
        ({"fix": "varies", "fix_title": "t", "migrate": "trusted"}, "needs 'migrate_trust' saying why"),
        ({"fix": "unsafe", "fix_title": "t", "migrate_trust": "w"}, "'migrate_trust' without migrate = 'trusted'"),
    ],
)
def test_malformed_entries_are_rejected(changes, error):
    with pytest.raises(CatalogError, match=re.escape(error)):
        parse_entry("rules/GL999.toml", _entry(**changes))


def test_trusted_migrations_carry_their_reason():
    doc = parse_entry("rules/GL999.toml", _entry(fix="unsafe", fix_title="t", migrate="trusted", migrate_trust="restores\n  0.3"))
    assert doc.migrate_trusted and doc.migrate_trust == "restores 0.3"
    assert not parse_entry("rules/GL999.toml", _entry()).migrate_trusted


def test_lookup_by_code_or_name():
    assert catalog.get("gl001").code == "GL001"
    assert catalog.get("volatile-flag").code == "GL001"
    # GL999, the code no rule has (tests/new_rule.py keeps it free); GL998 may be a scaffolded rule.
    assert catalog.get("GL999") is None
    assert catalog.get("no-such-rule") is None


def test_an_entry_read_alone_is_the_entry_of_the_whole_catalog(monkeypatch):
    from gradlint import catalog as cat

    whole = cat.load()
    monkeypatch.setattr(cat, "load", functools.lru_cache(maxsize=None)(cat.load.__wrapped__))
    monkeypatch.setattr(cat, "entry", functools.lru_cache(maxsize=None)(cat.entry.__wrapped__))
    parsed = []
    real = cat.tomllib.loads
    monkeypatch.setattr(cat.tomllib, "loads", lambda text: parsed.append(text) or real(text))
    assert cat.entry("GL002") == whole["GL002"]
    assert cat.entry("GL000") == whole["GL000"]
    assert len(parsed) == 2  # those two files, not the catalog
    with pytest.raises(KeyError):
        cat.entry("GL999")
    assert [cat.entry(code) for code in whole] == list(whole.values())
