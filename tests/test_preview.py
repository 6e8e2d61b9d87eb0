"""The preview tier: `--preview` / `preview = true`, off by default (Ruff's convention).

Findings whose premises rest on a guess from names report only there; rules marked
``preview = true`` in the catalog run only there, even when selected.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint import catalog
from gradlint import config as config_mod
from gradlint.cli import main

# ``model`` and ``criterion`` are parameters of unknown type: only their names say
# that ``loss`` is a loss with a graph.
BY_NAME = textwrap.dedent(
    """\
    def train(model, loader, optimizer, criterion):
        total = 0.0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss
        return total.item()
    """
)


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BY_NAME, encoding="utf-8")
    return tmp_path


def test_default_tier_is_silent_on_a_guess_from_names(project):
    assert run("check", "--no-cache", "--output-format", "concise", "train.py") == (0, "All checks passed!\n")


def test_preview_flag_reports_it(project):
    code, out = run("check", "--no-cache", "--preview", "--output-format", "concise", "-q", "train.py")
    assert code == 1
    assert out.startswith("train.py:7:9: GL301 ")


def test_preview_from_config_and_overridden_by_the_flag(project):
    (project / "pyproject.toml").write_text("[tool.gradlint]\npreview = true\n", encoding="utf-8")
    assert run("check", "--no-cache", "--output-format", "concise", "-q", "train.py")[0] == 1
    assert run("check", "--no-cache", "--no-preview", "--output-format", "concise", "-q", "train.py") == (0, "")


def test_preview_as_a_config_fragment(project):
    assert run("check", "--no-cache", "--config", "preview = true", "--output-format", "concise", "-q", "train.py")[0] == 1


def test_preview_must_be_a_boolean(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\npreview = "yes"\n', encoding="utf-8")
    code, _ = run("check", "--no-cache", "train.py")
    result = CliRunner().invoke(main, ["check", "--no-cache", "train.py"])
    assert code == 2
    assert f"{Path('pyproject.toml').resolve()}: 'preview' must be true or false" in result.output


def test_preview_rules_run_only_in_preview(monkeypatch, tmp_path):
    monkeypatch.setattr(config_mod, "preview_codes", lambda: frozenset({"GL204"}))
    cfg = config_mod.Config(root=tmp_path)
    assert "GL204" not in config_mod.resolve(cfg, ["ALL"]).codes
    assert "GL203" in config_mod.resolve(cfg, ["ALL"]).codes
    cfg.preview = True
    selection = config_mod.resolve(cfg, ["ALL"])
    assert "GL204" in selection.codes and selection.options.preview is True


def test_rules_listing_marks_the_preview_tier():
    code, out = run("rules")
    assert code == 0
    gl301 = next(line for line in out.splitlines() if line.startswith("GL301"))
    assert gl301.endswith("[weak part in preview]")
    listed = {d["code"]: d for d in json.loads(run("rules", "--output-format", "json")[1])}
    assert listed["GL301"]["preview"] is False and listed["GL301"]["default"] is True


def test_catalog_premises_and_preview_fields():
    doc = catalog.get("GL301")
    assert doc.premises and all(p.endswith(".") for p in doc.premises)
    assert "0 of 75" in doc.preview_precision
    with pytest.raises(catalog.CatalogError, match="a preview rule cannot be on by default"):
        raw = {
            "code": "GL999", "name": "x-y", "summary": "s", "message": "m", "default": True, "fix": "none",
            "fix_safety": "n", "why": "w", "torch": "t", "references": [],
            "examples": [{"bad": "x\n", "good": "x\n", "findings": []}], "preview": True,
        }
        catalog.parse_entry("rules/GL999.toml", raw)
