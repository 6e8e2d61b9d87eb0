"""The docs: generated parts match the catalog, the MkDocs site builds strictly, links resolve."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from harness import ROOT
from gradlint import catalog
from gradlint.cli import main
from gradlint.docs import generated_files, render_mkdocs_nav, rule_markdown


def test_generated_docs_are_up_to_date():
    stale = [
        str(path.relative_to(ROOT))
        for path, content in generated_files(ROOT).items()
        if not path.exists() or path.read_text(encoding="utf-8") != content
    ]
    assert not stale, f"run `python -m gradlint.docs`: stale {stale}"


def test_every_rule_has_a_page_a_nav_entry_and_a_readme_row():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    for code, doc in catalog.load().items():
        assert (ROOT / "docs" / "rules" / f"{code}.md").exists()
        assert f"| [{code}](docs/rules/{code}.md) | `{doc.name}` |" in readme
        assert f"| [{code}]({code}.md) | `{doc.name}` |" in index
        assert f"      - {code} {doc.name}: rules/{code}.md\n" in mkdocs


def test_mkdocs_nav_is_regenerated_between_markers():
    text = "nav:\n  - Rules:\n      - rules/index.md\n      # rules-nav:start\n      - GL999 gone: rules/GL999.md\n      # rules-nav:end\n"
    out = render_mkdocs_nav(text)
    assert "GL999" not in out
    assert out.startswith("nav:\n  - Rules:\n      - rules/index.md\n      # rules-nav:start\n      - GL000 unparsable-file: rules/GL000.md\n")
    assert out.endswith("      # rules-nav:end\n")
    with pytest.raises(ValueError, match="rules-nav"):
        render_mkdocs_nav("nav: []\n")


def test_rule_page_sections_in_ruff_order():
    text = rule_markdown(catalog.load()["GL001"])
    order = ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## Runtime check", "## References"]
    positions = [text.index(h) for h in order]
    assert positions == sorted(positions)


def test_finding_urls_are_the_site_rule_pages():
    site_url = re.search(r"(?m)^site_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8")).group(1)
    # With use_directory_urls, docs/rules/GL001.md is served at <site_url>rules/GL001/.
    assert catalog.load()["GL001"].url == site_url + "rules/GL001/"


_LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_readme_relative_links_resolve():
    # The site's links are checked by `mkdocs build --strict`; the README is not part of it.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t for t in _LINK_RE.findall(readme) if "://" not in t and not t.startswith("#")]
    assert targets, "the README links nothing?"
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).exists()]
    assert not missing


def test_contributing_links_resolve_and_runs_the_tests_as_the_readme_does():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    targets = [t for t in _LINK_RE.findall(text) if "://" not in t and not t.startswith("#")]
    assert [t for t in targets if not (ROOT / t.split("#")[0]).exists()] == []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    test_section = readme[readme.index("\n## Test\n") :]
    test_section = test_section[: test_section.index("\n## ", 1)]
    whole, quick = re.findall(r"```sh\n(.*?)```", test_section, re.S)[:2]
    blocks = [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S)]
    # The whole suite as the README's install-and-test line ends, and the quick selection as it is.
    assert whole.strip().split(" && ")[-1] in blocks
    assert quick.strip() in blocks
    assert "[CONTRIBUTING.md](CONTRIBUTING.md)" in readme


def test_cli_reference_names_every_check_option():
    help_text = CliRunner().invoke(main, ["check", "--help"]).stdout
    options = set(re.findall(r"(--[a-z][a-z-]+)", help_text)) - {"--help", "--version"}
    assert {"--output-format", "--statistics", "--stdin-filename", "--fix"} <= options
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert not [o for o in sorted(options) if o not in reference]


@pytest.mark.slow
def test_docs_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    for code, doc in catalog.load().items():
        page = site / "rules" / code / "index.html"
        assert page.is_file(), f"no page for {code}"
        assert f"{doc.name} ({code})" in page.read_text(encoding="utf-8")
    for page in ("getting-started", "configuration", "cli", "integrations/pre-commit", "integrations/github-actions",
                 "integrations/notebooks", "integrations/editors", "integrations/ruff-and-flake8"):
        assert (site / page / "index.html").is_file(), page
