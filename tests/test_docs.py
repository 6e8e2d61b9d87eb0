"""Generated docs (README rule table, docs/rules/*.md) match the catalog."""

from __future__ import annotations

from harness import ROOT
from gradlint import catalog
from gradlint.docs import generated_files, rule_markdown


def test_generated_docs_are_up_to_date():
    stale = [
        str(path.relative_to(ROOT))
        for path, content in generated_files(ROOT).items()
        if not path.exists() or path.read_text(encoding="utf-8") != content
    ]
    assert not stale, f"run `python -m gradlint.docs`: stale {stale}"


def test_every_rule_has_a_page_and_a_readme_row():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code, doc in catalog.load().items():
        assert (ROOT / "docs" / "rules" / f"{code}.md").exists()
        assert f"| [{code}](docs/rules/{code}.md) | `{doc.name}` |" in readme


def test_rule_page_sections_in_ruff_order():
    text = rule_markdown(catalog.load()["GL001"])
    order = ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## Runtime check", "## References"]
    positions = [text.index(h) for h in order]
    assert positions == sorted(positions)
