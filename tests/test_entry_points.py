"""Every entry point reports the same findings for the same document.

``gradlint check``, ``gradlint migrate``, ``gradlint verify``, the language
server and the flake8 plugin each read a document their own way, then all go
through ``gradlint.checking``: same rules for the path, same positions, same
GL000 for a document too deep to analyse.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from gradlint.config import Settings
from gradlint.flake8_plugin import Plugin
from gradlint.migrate import MigrateMode, migrate_file, migration_settings
from gradlint.runner import Mode, check_file
from gradlint.verify.scripts import Options, prepare

LEGACY = (
    "import torch\n"
    "from torch.autograd import Variable\n"
    "\n"
    "\n"
    "def evaluate(model, x):\n"
    "    out = model(Variable(x, volatile=True))\n"
    "    print(out.volatile)\n"
    "    loss = model(x).sum()\n"
    "    return loss.data[0]\n"
)
# (row, 1-based column, code) as `gradlint check` reports them.
EXPECTED = [(6, 17, "GL001"), (7, 11, "GL004"), (9, 12, "GL003")]
# Parsed, then deeper than the analysis follows.
TOO_DEEP = LEGACY + "x = " + "not " * 1000 + "y\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL000", "GL001", "GL002", "GL003", "GL004"]\n')
    return tmp_path


def via_check(path: Path):
    report = check_file(path, Settings(cwd=path.parent), Mode())
    return [(d.row, d.column, d.code, d.message) for d in report.diagnostics]


def via_server(path: Path):
    pytest.importorskip("pygls")
    from gradlint.server import check_text

    checked = check_text(path.read_text(), path)
    return [(d.row, d.column, d.code, d.message) for d in checked.diagnostics]


def via_flake8(path: Path, monkeypatch):
    monkeypatch.chdir(path.parent)
    text = path.read_text()
    plugin = Plugin(ast.parse(text), str(path), text.splitlines(keepends=True))
    # flake8 columns are 0-based (it adds one); the message starts with the code.
    return [(row, col + 1, *message.split(" ", 1)) for row, col, message, _ in plugin.run()]


def test_check_server_flake8_and_verify_report_the_same_findings(project, monkeypatch):
    path = project / "legacy.py"
    path.write_text(LEGACY)
    checked = via_check(path)
    assert [(r, c, code) for r, c, code, _ in checked] == EXPECTED
    assert via_server(path) == checked
    assert via_flake8(path, monkeypatch) == checked
    prepared = prepare(path, Settings(cwd=project), Options())
    assert [(d.row, d.column, d.code, d.message) for d in prepared.diagnostics] == checked


def test_migrate_fixes_or_leaves_each_finding_check_reports(project):
    path = project / "legacy.py"
    path.write_text(LEGACY)
    checked = Counter(code for _, _, code, _ in via_check(path))
    report = migrate_file(path, migration_settings(str(project / "pyproject.toml")), MigrateMode(write=False))
    assert report.skipped is None and not report.errors
    assert report.fixed + Counter(d.code for d in report.left) == checked
    assert [d.code for d in report.left] == ["GL004"]  # the one without a fix


def test_every_entry_point_reports_a_document_too_deep_to_analyse_as_gl000(project, monkeypatch):
    path = project / "deep.py"
    path.write_text(TOO_DEEP)
    expected = [(1, 1, "GL000", "too deeply nested to analyse")]
    assert via_check(path) == expected
    assert via_server(path) == expected
    assert via_flake8(path, monkeypatch) == expected
    verified = prepare(path, Settings(cwd=project), Options())
    assert verified.error == "cannot run it: too deeply nested to analyse (line 1)"
    migrated = migrate_file(path, migration_settings(str(project / "pyproject.toml")), MigrateMode(write=False))
    assert migrated.skipped == "too deeply nested to analyse; left untouched"
