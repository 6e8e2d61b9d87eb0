"""Every entry point reports the same findings for the same document.

``gradlint check``, ``gradlint migrate``, ``gradlint verify``, the language
server and the flake8 plugin each read a document their own way, then all go
through ``gradlint.checking``: same rules for the path, same positions, same
GL000 for a document too deep to analyse.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from pathlib import Path
from typing import Optional

import pytest

from gradlint.config import Settings
from gradlint.flake8_plugin import Plugin
from gradlint.migrate import MigrateMode, migrate_file, migration_settings
from gradlint.runner import Mode, check_file
from gradlint.verify.scripts import Options, prepare
from samples import ASYNC_LEGACY

LEGACY = (
    "import torch\n"
    "from torch.autograd import Variable\n"
    "\n"
    "\n"
    "def evaluate(model, x):\n"
    "    out = model(Variable(x, volatile=True))\n"
    "    print(out.volatile)\n"
    "    loss = torch.nn.functional.mse_loss(model(x), x)\n"
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


def test_migrate_alone_reads_a_loss_named_so_as_0_dim(project):
    # `gradlint migrate` runs on code its user declares PyTorch <= 0.3, where a
    # loss was a one-element tensor (RuleOptions.legacy_code); `check` proves no
    # 0-dim tensor from a name and leaves that guess to the preview tier.
    path = project / "named.py"
    path.write_text("import torch\n\n\ndef report(criterion, out, y):\n    loss = criterion(out, y)\n    return loss.data[0]\n")
    assert via_check(path) == []
    report = migrate_file(path, migration_settings(str(project / "pyproject.toml")), MigrateMode(write=False))
    assert report.fixed == Counter({"GL003": 1}) and not report.left


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




def test_every_entry_point_reads_an_async_file_whatever_rules_are_selected(tmp_path, monkeypatch):
    """`select = ["GL003"]`: the file is read as GL005's rename makes it parse,
    and its GL003 finding is where `--select GL003,GL005` puts it."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL003"]\n')
    path = tmp_path / "legacy_async.py"
    path.write_text(ASYNC_LEGACY)
    monkeypatch.chdir(tmp_path)
    checked = via_check(path)
    assert [(r, c, code) for r, c, code, _ in checked] == [(7, 12, "GL003")]
    json_out = ("check", "--no-cache", "--output-format", "json")
    assert _cli(*json_out, "legacy_async.py") == [("GL003", 7, 12)]
    assert _cli(*json_out, "--select", "GL003,GL005", "legacy_async.py") == [("GL003", 7, 12), ("GL005", 5, 16)]
    assert _cli(*json_out, "--stdin-filename", "legacy_async.py", "-", stdin=ASYNC_LEGACY) == [("GL003", 7, 12)]
    assert via_server(path) == checked
    prepared = prepare(path, Settings(cwd=tmp_path), Options())
    assert [(d.row, d.column, d.code, d.message) for d in prepared.diagnostics] == checked
    # flake8 runs no plugin on a file Python cannot parse: the syntax error is its own
    # E999, under its own selection (flake8's convention), and GL003 is not seen there.
    pytest.importorskip("flake8")
    flake8 = [sys.executable, "-m", "flake8", "--isolated"]
    found = subprocess.run([*flake8, "--select", "GL,E999", "legacy_async.py"], capture_output=True, text=True)
    assert found.stdout == "legacy_async.py:5:17: E999 SyntaxError: invalid syntax\n"
    assert subprocess.run([*flake8, "--select", "GL", "legacy_async.py"], capture_output=True, text=True).stdout == ""


def test_every_entry_point_reports_a_syntax_error_whatever_rules_are_selected(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL003"]\nignore = ["GL000"]\n')
    path = tmp_path / "broken.py"
    path.write_text("x = 1\ndef f(:  # noqa: GL000\n pass\n")
    monkeypatch.chdir(tmp_path)
    expected = [(2, 7, "GL000", "syntax error: invalid syntax")]
    assert via_check(path) == expected
    assert _cli("check", "--no-cache", "--output-format", "json", "-", stdin=path.read_text()) == [("GL000", 2, 7)]
    assert via_server(path) == expected


# A fact from another file of the project: `Encoder` is an `nn.Module` only
# through `Base`, defined in `pkg/nets.py`.
NETS = "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n"
TRAIN = (
    "from pkg.nets import Base\n"
    "\n"
    "\n"
    "class Encoder(Base):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "\n"
    "\n"
    "enc = Encoder()\n"
    "enc.requires_grad = False\n"
)
# (code, row, 1-based column)
CROSS_FILE = [("GL302", 10, 1)]


@pytest.fixture
def package(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "nets.py").write_text(NETS)
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(*args: str, stdin: Optional[str] = None):
    import json

    from click.testing import CliRunner

    from gradlint.cli import main

    result = CliRunner().invoke(main, [*args], input=stdin)
    assert result.exit_code in (0, 1), result.output
    return sorted((f["code"], f["location"]["row"], f["location"]["column"]) for f in json.loads(result.stdout))


def _over_stdio(root: Path, path: Path):
    pytest.importorskip("pygls")
    from test_server import Client

    client = Client(root)
    try:
        client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        uri = path.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": TRAIN}})
        found = client.diagnostics(uri)["diagnostics"]
        client.request("shutdown", None)
        client.notify("exit", None)
    finally:
        client.proc.kill()
        client.proc.wait()
    return sorted((d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1) for d in found)


def test_every_entry_point_sees_the_facts_of_the_other_files_of_the_project(package, monkeypatch):
    import dataclasses

    from gradlint import migrate
    from gradlint.checking import check_document

    train = package / "pkg" / "train.py"
    json_out = ("check", "--no-cache", "--output-format", "json")
    assert _cli(*json_out, "pkg") == CROSS_FILE
    assert _cli(*json_out, "pkg/train.py") == CROSS_FILE
    assert _cli(*json_out, "--stdin-filename", "pkg/train.py", "-", stdin=TRAIN) == CROSS_FILE
    # the pre-commit hook is `gradlint check` on the staged files
    hooks = (Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text()
    assert "entry: gradlint check --force-exclude\n" in hooks
    assert _cli("check", "--force-exclude", "--no-cache", "--output-format", "json", "pkg/train.py") == CROSS_FILE
    # the guard's cross-check marks the findings of that same run
    (package / "guard.json").write_text("[]")
    assert _cli(*json_out, "--guard-report", "guard.json", "pkg") == CROSS_FILE
    assert _over_stdio(package, train) == CROSS_FILE
    flake8 = Plugin(ast.parse(TRAIN), "pkg/train.py", TRAIN.splitlines(keepends=True))
    assert sorted((m.split(" ", 1)[0], row, col + 1) for row, col, m, _ in flake8.run()) == CROSS_FILE
    verified = prepare(train, Settings(cwd=package), Options())
    assert sorted((d.code, d.row, d.column) for d in verified.diagnostics) == CROSS_FILE
    # migrate rewrites legacy idioms only; the rules it runs see what `check` sees
    seen = []
    real_migrate = migrate.migrate_file
    monkeypatch.setattr(migrate, "migrate_file", lambda path, session, mode: seen.append(session) or real_migrate(path, session, mode))
    files = [Path("pkg/nets.py"), Path("pkg/train.py")]
    run = migrate.migrate_paths(files, migrate.migration_settings(), migrate.MigrateMode(write=False, diff=True))
    assert not run.internal_error and not run.changed and len(seen) == 2
    rules = dataclasses.replace(seen[-1].rules("pkg/train.py"), codes=frozenset({"GL302"}))
    assert [(f.code, f.start[0], f.start[1] + 1) for f in check_document("pkg/train.py", TRAIN, rules).findings] == CROSS_FILE
    # --add-noqa silences exactly what `check` reports
    result = __import__("click.testing", fromlist=["CliRunner"]).CliRunner().invoke(
        __import__("gradlint.cli", fromlist=["main"]).main, ["check", "--no-cache", "--add-noqa", "pkg"]
    )
    assert result.exit_code == 0, result.output
    assert train.read_text().splitlines()[9] == "enc.requires_grad = False  # noqa: GL302"
    assert (package / "pkg" / "nets.py").read_text() == NETS


def test_without_the_other_file_nothing_is_known(package):
    (package / "pkg" / "nets.py").unlink()
    json_out = ("check", "--no-cache", "--output-format", "json")
    assert _cli(*json_out, "pkg") == []
    assert _cli(*json_out, "--stdin-filename", "pkg/train.py", "-", stdin=TRAIN) == []


def test_files_checked_one_by_one_share_the_index_of_their_directory(package):
    """The flake8 plugin and the language server index each file's neighbours:
    unchanged files are summarised once, and give one index, whatever file asks."""
    from gradlint.session import Session, SummaryMemo

    memo = SummaryMemo()
    session = Session(Settings(cwd=package))
    first = session.indexed([Path("pkg/train.py")], memo=memo).index
    assert session.indexed([Path("pkg/nets.py")], memo=memo).index is first
    assert first.derives_from_module("pkg.nets.Base", "pkg/train.py") is True
    # a file that changes is summarised again, into another index
    (package / "pkg" / "nets.py").write_text("class Base:\n    pass\n")
    os.utime(package / "pkg" / "nets.py", ns=(1, 1))
    second = session.indexed([Path("pkg/train.py")], memo=memo).index
    assert second is not first and second.derives_from_module("pkg.nets.Base", "pkg/train.py") is False
    # text that is not the file's (an editor's buffer) is never shared
    given = session.indexed([Path("pkg/train.py")], texts={"pkg/train.py": TRAIN}, memo=memo).index
    assert given is not second


def test_the_flake8_plugin_checks_text_that_is_not_the_file_as_given(package):
    """flake8 reading stdin with `--stdin-display-name pkg/train.py`: the text is
    summarised as that file's, not the file on disk."""
    (package / "pkg" / "train.py").write_text("x = 1\n")
    flake8 = Plugin(ast.parse(TRAIN), "pkg/train.py", TRAIN.splitlines(keepends=True))
    assert sorted((m.split(" ", 1)[0], row, col + 1) for row, col, m, _ in flake8.run()) == CROSS_FILE
