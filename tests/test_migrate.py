"""`gradlint migrate`: the fixtures' expected output, the invariants, and the command line."""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import shutil
import subprocess
import textwrap

import pytest
from click.testing import CliRunner

from harness import (
    MIGRATE_FIXTURES,
    ROOT,
    migrate_cases,
    migrate_expected_paths,
    migration_report,
    run_migration,
)
from gradlint import catalog, migrate
from gradlint.cli import main
from gradlint.engine import LintSettings, lint_source, parse
from gradlint.legacy_syntax import rename_async_arguments
from gradlint.options import RuleOptions
from gradlint.text_diff import unified_diff

needs_gl202 = pytest.mark.skipif(
    catalog.get("GL202") is None,
    reason="GL202 (in-place updates through .data, issue 4) is not in this build; "
    "migrate applies it as soon as the rule exists",
)
# Fixtures whose expected output assumes GL202's documented fix.
NEEDS_GL202 = {"manual_sgd.py"}
CASES = [pytest.param(p, id=p.name, marks=[needs_gl202] if p.name in NEEDS_GL202 else []) for p in migrate_cases()]
ALL_CASES = [pytest.param(p, id=p.name) for p in migrate_cases()]
WITHOUT_GL202 = [p for p in migrate_cases() if p.name not in NEEDS_GL202]


def run(*args):
    return CliRunner().invoke(main, ["migrate", *args])


# -- the fixtures ------------------------------------------------------------------------


@pytest.mark.parametrize("path", CASES)
def test_fixture_migrates_to_its_expected_output(path):
    result = run_migration(path)
    migrated, report = migrate_expected_paths(path)
    want = migrated.read_text(encoding="utf-8") if migrated.exists() else path.read_text(encoding="utf-8")
    assert result.source == want
    assert migration_report(result) == report.read_text(encoding="utf-8").splitlines()
    assert not result.problems


def test_fixtures_cover_the_era_idioms():
    sources = {p.name: p.read_text(encoding="utf-8") for p in migrate_cases()}
    everything = "".join(sources.values())
    for idiom in ("volatile=True", ".data[0]", "async=True", "Variable(", ".data.add_(", ".grad.data.zero_()",
                  "import torch.autograd as autograd", "print \""):
        assert idiom in everything, idiom
    assert {p.name for p in migrate_cases()} >= NEEDS_GL202


def test_every_migrate_fixture_has_a_report_and_no_orphans():
    for path in migrate_cases():
        assert migrate_expected_paths(path)[1].exists(), f"{path.name}: run tests/update_fixtures.py migrate"
    for extra in MIGRATE_FIXTURES.glob("*.migrated.py"):
        assert (extra.parent / extra.name.replace(".migrated.py", ".py")).exists(), extra


@pytest.mark.parametrize("name", ["mnist_train.py", "validate.py"])
def test_async_fixtures_do_not_compile_as_they_are(name):
    with pytest.raises(SyntaxError):
        compile((MIGRATE_FIXTURES / name).read_text(encoding="utf-8"), name, "exec")


# -- invariants --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_CASES)
def test_migrated_file_parses_and_a_second_migration_changes_nothing(path):
    first = run_migration(path)
    if first.skipped is not None:
        assert first.source == path.read_text(encoding="utf-8") and not first.fixed
        return
    parse(first.source)
    compile(first.source, str(path), "exec")
    second = migrate.migrate_source(first.source, str(path), LintSettings(frozenset(migrate.migrations())))
    assert second.source == first.source
    assert not second.fixed


# Lines a migration may add where there was none.
_INSERTED = re.compile(r"^(\s*@torch\.(no_grad|inference_mode)\(\)|import torch|\s*with torch\.no_grad\(\):)\r?\n$")


def _touched_lines(source: str, path: str):
    """Original lines a migration may change: those of a finding, of an `async=`, of an import."""
    renamed, found = rename_async_arguments(source)
    touched = {a.line for a in found}
    options = RuleOptions(legacy_code=True)  # what migrate lints with
    findings = lint_source(renamed, path, LintSettings(frozenset(migrate.migrations()), options)).findings
    for f in findings:
        touched.update(range(f.start[0], f.end[0] + 1))
    lines = source.splitlines(keepends=True)
    imports = {i + 1 for i, line in enumerate(lines) if re.match(r"(from|import)\s+torch", line)}
    return touched, imports


@pytest.mark.parametrize("path", ALL_CASES)
def test_lines_without_a_migration_are_unchanged_byte_for_byte(path):
    source = path.read_text(encoding="utf-8")
    migrated = run_migration(path).source
    touched, imports = _touched_lines(source, str(path))
    old, new = source.splitlines(keepends=True), migrated.splitlines(keepends=True)
    guarded = any(re.match(r"^\s*with torch\.no_grad\(\):\r?\n$", line) for line in new) and not any(
        re.match(r"^\s*with torch\.no_grad\(\):\r?\n$", line) for line in old
    )
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            assert all(_INSERTED.match(line) for line in new[j1:j2]), new[j1:j2]
            continue
        rows = range(i1 + 1, i2 + 1)
        removes_import = any(r in imports for r in rows)
        for r in rows:
            allowed = r in touched or r in imports or (removes_import and not old[r - 1].strip())
            # Inside an inserted ``with torch.no_grad():`` the lines keep their text, one level deeper.
            allowed = allowed or (guarded and any(_reindented(old[r - 1], line) for line in new[j1:j2]))
            assert allowed, f"line {r} changed without a migration: {old[r - 1]!r}"


def _reindented(old: str, new: str) -> bool:
    if not old.strip():
        return not new.strip()
    return new.endswith(old) and len(new) > len(old) and not new[: len(new) - len(old)].strip()


def test_unchanged_bytes_survive_crlf_bom_tabs_and_odd_spacing(tmp_path):
    text = (
        "import torch\r\n"
        "from torch.autograd import Variable\r\n"
        "\r\n"
        "def step(model, loader):\r\n"
        "\tfor x, y in loader:\r\n"
        "\t\tx = x.cuda( async = True )   # keep this comment\r\n"
        "\t\tloss = model( Variable(x), y )\r\n"
        "\t\tprint('loss: %.3f' % loss.data[0])  ;  z = {'a':1}\r\n"
    )
    path = tmp_path / "odd.py"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == b"\xef\xbb\xbf" + (
        "import torch\r\n"
        "\r\n"
        "def step(model, loader):\r\n"
        "\tfor x, y in loader:\r\n"
        "\t\tx = x.cuda( non_blocking = True )   # keep this comment\r\n"
        "\t\tloss = model( x, y )\r\n"
        "\t\tprint('loss: %.3f' % loss.item())  ;  z = {'a':1}\r\n"
    ).encode()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A copy of the legacy fixtures (not their expected outputs) in a fresh directory."""
    monkeypatch.chdir(tmp_path)
    for path in migrate_cases():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_after_migration_check_reports_only_what_the_summary_left(project):
    result = run("--output-format", "json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    left = [(d["filename"], d["location"]["row"], d["location"]["column"], d["code"]) for d in summary["left_for_human"]]
    assert left  # the fixtures include cases for a human
    check = CliRunner().invoke(main, ["check", "--select", "GL001,GL002,GL003", "--output-format", "json"])
    found = [(d["filename"], d["location"]["row"], d["location"]["column"], d["code"]) for d in json.loads(check.stdout)]
    # and the syntax error of each file it skipped (reported whatever the selection)
    assert [f["filename"] for f in summary["skipped"]] == ["py2_logging.py"]
    assert [item for item in found if item[3] == "GL000"] == [("py2_logging.py", 9, 13, "GL000")]
    assert [item for item in found if item[3] != "GL000"] == [item for item in left if item[3] in ("GL001", "GL002", "GL003")]


def test_running_migrate_twice_changes_nothing_the_second_time(project):
    assert run().exit_code == 1  # findings left for a human, a Python 2 file skipped
    after = {p.name: p.read_bytes() for p in project.glob("*.py")}
    check = run("--check")
    assert (check.exit_code, check.stdout) == (0, "")
    second = run()
    assert second.stdout.startswith("Scanned 6 files; changed 0.\n")
    assert {p.name: p.read_bytes() for p in project.glob("*.py")} == after


# -- the command line --------------------------------------------------------------------


def _expected_diff(paths):
    out = []
    for path in paths:
        migrated = migrate_expected_paths(path)[0]
        if migrated.exists():
            name = os.path.relpath(path, ROOT)
            out.append(unified_diff(name, path.read_text(encoding="utf-8"), migrated.read_text(encoding="utf-8")))
    return "".join(out)


def test_diff_on_the_fixtures_shows_the_expected_diff_and_summary(monkeypatch):
    monkeypatch.chdir(ROOT)
    names = [os.path.relpath(p, ROOT) for p in WITHOUT_GL202]
    result = run("--diff", *names)
    assert result.exit_code == 1
    assert result.stdout == _expected_diff(WITHOUT_GL202)
    lines = result.stderr.splitlines()
    assert lines[:-1] == [
        "Scanned 5 files; would change 4.",
        "Legacy uses: 27 would be migrated, 2 left for a human.",
        "Would apply 27 fixes:",
        "  GL001  volatile-flag           6",
        "  GL002  variable-wrapper        7",
        "  GL003  data-index-scalar       7",
        "  GL005  async-keyword-argument  7",
        "Left for a human (2, positions after migration):",
        "  fixtures/migrate/needs_review.py:12:14: GL001 `volatile=not train` has been ignored since PyTorch 0.4: "
        "where it is true this call still records an autograd graph; remove the flag and run the code that "
        "passes a true value under `torch.no_grad()`",
        "  fixtures/migrate/needs_review.py:14:8: GL004 Reading `inputs.volatile` does nothing since PyTorch 0.4 "
        "(it is always False); use `torch.no_grad()` to stop recording a graph",
        "Skipped (1):",
    ]
    assert lines[-1].startswith(
        "  fixtures/migrate/py2_logging.py: Python 2 syntax (`print` statement) on line 9: "
        "Missing parentheses in call to 'print'"
    )
    assert lines[-1].endswith("; left untouched")


@needs_gl202
def test_diff_on_the_fixture_directory_shows_the_expected_diff(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run("--diff", "fixtures/migrate")
    assert result.exit_code == 1
    assert result.stdout == _expected_diff(migrate_cases())


def test_diff_applies_with_git_apply_and_gives_the_expected_files(project):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    patch = run("--diff").stdout
    subprocess.run(["git", "apply", "-"], cwd=project, input=patch.encode(), check=True)
    for path in WITHOUT_GL202:
        migrated = migrate_expected_paths(path)[0]
        want = migrated.read_bytes() if migrated.exists() else path.read_bytes()
        assert (project / path.name).read_bytes() == want, path.name


def test_writes_the_expected_files_and_prints_the_summary(project):
    result = run()
    assert result.exit_code == 1
    assert result.stdout.startswith("Scanned 6 files; changed 5.\nLegacy uses: 35 migrated, 2 left for a human.\nApplied ")
    assert "Left for a human (2):\n" in result.stdout
    for path in WITHOUT_GL202:
        migrated = migrate_expected_paths(path)[0]
        want = migrated.read_bytes() if migrated.exists() else path.read_bytes()
        assert (project / path.name).read_bytes() == want, path.name


def test_check_prints_names_only_and_writes_nothing(project):
    before = {p.name: p.read_bytes() for p in project.glob("*.py")}
    result = run("--check")
    assert result.exit_code == 1
    assert result.stdout == "manual_sgd.py\nmnist_train.py\nneeds_review.py\ntutorial_test_set.py\nvalidate.py\n"
    assert result.stderr.startswith("skipped: py2_logging.py: Python 2 syntax")
    assert {p.name: p.read_bytes() for p in project.glob("*.py")} == before


def test_check_with_diff_prints_the_patch_only(project):
    result = run("--check", "--diff", "needs_review.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- needs_review.py\n+++ needs_review.py\n")
    assert result.stderr == ""


def test_json_output(project):
    result = run("--diff", "--output-format", "json", "mnist_train.py", "needs_review.py", "py2_logging.py")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert set(data) == {
        "files_scanned", "files_changed", "written", "fixes", "eval_mode_flags_dropped", "changed", "left_for_human", "skipped", "errors"
    }
    assert (data["files_scanned"], data["files_changed"], data["written"], data["eval_mode_flags_dropped"]) == (3, 2, False, 0)
    assert data["fixes"] == {"GL001": 2, "GL002": 4, "GL003": 4, "GL005": 4}
    assert [c["filename"] for c in data["changed"]] == ["mnist_train.py", "needs_review.py"]
    assert data["changed"][0]["diff"].startswith("--- mnist_train.py\n+++ mnist_train.py\n")
    first = data["left_for_human"][0]
    assert (first["code"], first["filename"], first["location"], first["fix"]) == (
        "GL001", "needs_review.py", {"row": 12, "column": 14}, None
    )
    assert [s["filename"] for s in data["skipped"]] == ["py2_logging.py"]
    assert data["errors"] == []
    assert (project / "mnist_train.py").read_bytes() == (MIGRATE_FIXTURES / "mnist_train.py").read_bytes()


def test_select_and_ignore(project):
    result = run("--diff", "--select", "GL003", "needs_review.py")
    assert [line for line in result.stdout.splitlines() if line.startswith(("+", "-")) and line[1:2] not in "+-"] == [
        "-    return loss.data[0]",
        "+    return loss.item()",
    ]
    # Without the async rename, the files that use `async=` cannot be parsed: skipped, with the reason.
    result = run("--check", "--ignore", "GL005", "validate.py")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "skipped: validate.py: `async` is a keyword since Python 3.7 and cannot be a name or argument here "
        "(line 43); rename it by hand; left untouched\n"
    )


def test_configured_ignores_apply_and_configured_select_does_not(project):
    (project / "pyproject.toml").write_text(
        '[tool.gradlint]\nselect = ["GL004"]\nper-file-ignores = { "needs_review.py" = ["GL002"] }\n'
    )
    result = run("--diff", "needs_review.py")
    assert "+    return loss.item()" in result.stdout  # GL003 migrates although check selects GL004 only
    assert "target.detach()" not in result.stdout  # GL002 is ignored for the file


def test_noqa_keeps_a_line_as_it_is(project):
    (project / "keep.py").write_text("def f(loss):\n    a = loss.data[0]  # noqa: GL003\n    return loss.data[0]\n")
    run("keep.py")
    assert (project / "keep.py").read_text() == "def f(loss):\n    a = loss.data[0]  # noqa: GL003\n    return loss.item()\n"


def test_file_level_noqa_keeps_the_file_as_it_is(project):
    text = "# gradlint: noqa\nx = y.cuda(async=True)\nz = loss.data[0]\n"
    (project / "keep.py").write_text(text)
    assert run("--check", "keep.py").stdout == ""
    (project / "keep.py").write_text(text.replace("noqa", "noqa: GL003"))
    diff = run("--diff", "keep.py").stdout
    assert "+x = y.cuda(non_blocking=True)\n" in diff and "item()" not in diff


def test_unknown_code_and_non_migration_selection_are_usage_errors(project, monkeypatch):
    result = run("--select", "GL999")
    assert (result.exit_code, result.stderr) == (2, "error: unknown rule code or prefix 'GL999'\n")
    real = migrate.migrations
    monkeypatch.setattr(migrate, "migrations", lambda: {c: m for c, m in real().items() if c != "GL004"})
    result = run("--select", "GL004")
    assert result.exit_code == 2
    assert result.stderr == ("error: 'GL004' selects no migration (`gradlint migrate` applies GL001, GL002, GL003, GL005, GL202, GL204)\n")


def test_a_rule_the_catalog_does_not_mark_is_no_migration(project):
    assert "GL101" not in migrate.migrations()
    assert run("--check", "needs_review.py").stdout == "needs_review.py\n"


def test_missing_path_is_exit_2(project):
    result = run("nope.py")
    assert (result.exit_code, result.stderr) == (2, "error: nope.py: No such file or directory\n")


def test_clean_tree_exits_0(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "modern.py").write_text("import torch\n\nwith torch.no_grad():\n    y = torch.ones(2).sum().item()\n")
    result = run()
    assert (result.exit_code, result.stdout) == (0, "Scanned 1 file; changed 0.\n")


def test_python2_file_is_left_untouched_byte_for_byte(project):
    before = (project / "py2_logging.py").read_bytes()
    result = run("py2_logging.py")
    assert result.exit_code == 1
    assert "Skipped (1):\n  py2_logging.py: Python 2 syntax (`print` statement) on line 9:" in result.stdout
    assert (project / "py2_logging.py").read_bytes() == before


def test_python2_that_libcst_accepts_is_still_skipped(tmp_path):
    # LibCST parses `except E, e:`; CPython 3 does not: the file must not be half-migrated.
    path = tmp_path / "old.py"
    text = "from torch.autograd import Variable\ntry:\n    v = Variable(x)\nexcept ValueError, e:\n    pass\n"
    path.write_text(text)
    result = run(str(path))
    assert result.exit_code == 1
    assert "Python 2 syntax (`except E, name:`) on line 4" in result.stdout
    assert path.read_text() == text


def test_tab_indented_file_that_libcst_refuses_is_reported_not_rewritten(tmp_path):
    # CPython reads the tabs; LibCST only with them expanded, so nothing may be
    # rewritten (it would reindent the file), and the volatile flag is left for a human.
    path = tmp_path / "old_test.py"
    text = (
        "from torch.autograd import Variable\n\n\nclass Tester:\n    def run(self, model, x):\n"
        "\t\t    v = Variable(x, volatile=True)\n\t\t    return model(v)\n\n    def other(self):\n        return 1\n"
    )
    compile(text, "old_test.py", "exec")
    path.write_text(text)
    result = run(str(path))
    assert result.exit_code == 1
    assert result.stdout.startswith("Scanned 1 file; changed 0.\nLegacy uses: 0 migrated, 1 left for a human.\n")
    assert f"{path}:6:11: GL001 `volatile=True` has been ignored" in result.stdout
    assert "internal error" not in result.stdout + (result.stderr or "")
    assert path.read_text() == text


def test_undecodable_file_is_skipped_and_the_run_goes_on(project):
    (project / "latin.py").write_bytes(b"from torch.autograd import Variable\nname = '\xe9'\n")
    result = run("latin.py", "needs_review.py")
    assert result.exit_code == 1
    assert "  latin.py: cannot decode as UTF-8: invalid byte 0xe9 on line 2\n" in result.stdout
    assert "return loss.item()" in (project / "needs_review.py").read_text()


def test_read_only_file_is_skipped(project):
    # Refused for root too: no write permission bit means the owner wants the file left alone.
    (project / "needs_review.py").chmod(0o444)
    result = run("needs_review.py")
    assert "  needs_review.py: file is read-only; not written\n" in result.stdout


def _untrusted(code: str, monkeypatch) -> None:
    docs = catalog.load()
    monkeypatch.setitem(docs, code, dataclasses.replace(docs[code], migrate_trust=""))


def test_unsafe_fixes_are_reported_not_applied_unless_asked(project, monkeypatch):
    _untrusted("GL003", monkeypatch)  # pretend: a migration the catalog does not trust
    (project / "log.py").write_text("def log(loss):\n    print(loss.data[0])\n")
    result = run("--diff", "log.py")
    assert result.exit_code == 0 and result.stdout == ""
    assert "  log.py:2:11: GL003 `loss.data[0]` reads a scalar" in result.stderr
    assert result.stderr.splitlines()[-1].endswith(" (fix with --unsafe-fixes)")
    result = run("--diff", "--unsafe-fixes", "log.py")
    assert "+    print(loss.item())" in result.stdout


def test_trusted_migrations_apply_unsafe_fixes(project):
    # nothing says `loss` is 0-dim: `check --fix` leaves it; migrate trusts GL003 in legacy code
    (project / "log.py").write_text("def log(loss):\n    print(loss.data[0])\n")
    assert "+    print(loss.item())" in run("--diff", "log.py").stdout
    CliRunner().invoke(main, ["check", "--fix", "log.py"])
    assert (project / "log.py").read_text() == "def log(loss):\n    print(loss.data[0])\n"


def test_the_catalog_marks_the_trusted_migrations():
    assert migrate.trusted_codes() == {"GL001", "GL002", "GL003", "GL202", "GL204"}
    assert "bitwise" in catalog.get("GL202").migrate_trust
    assert all(catalog.get(code).fix != "safe" for code in migrate.trusted_codes())


def test_check_reports_async_and_every_other_finding_of_a_legacy_file(project):
    result = CliRunner().invoke(main, ["check", "-q", "--output-format", "json", "mnist_train.py"])
    found = [(d["location"]["row"], d["location"]["column"], d["code"]) for d in json.loads(result.stdout)]
    assert found == [
        (31, 38, "GL005"), (31, 63, "GL005"), (32, 24, "GL002"), (32, 40, "GL002"), (38, 23, "GL003"),
        (42, 55, "GL003"), (52, 38, "GL005"), (52, 63, "GL005"), (53, 24, "GL001"), (53, 55, "GL002"),
        (55, 22, "GL003"),
    ]  # and GL101 at 54:18 with --preview, which GL001's decorator fixes too
    assert json.loads(result.stdout)[0]["fix"] == {
        "applicability": "safe",
        "message": "Rename `async=` to `non_blocking=`",
        # The rename is one fix for every `async=` of the file (as --fix applies it),
        # in positions of the file as written.
        "edits": [
            {
                "content": "non_blocking=True), target.cuda(non_blocking",
                "location": {"row": row, "column": 38},
                "end_location": {"row": row, "column": 68},
            }
            for row in (31, 52)
        ],
    }
    result = CliRunner().invoke(main, ["check", "--fix", "--no-cache", "mnist_train.py"])
    # `Variable(data)` around a loader's batch: dropping it is unsafe (the batch may carry
    # a graph), so --fix leaves those two for --unsafe-fixes or migrate.
    assert [line.split(": GL")[0] + ": GL" + line.split(": GL")[1][:3] for line in result.stdout.splitlines()[:-1]] == [
        "mnist_train.py:32:24: GL002",
        "mnist_train.py:32:40: GL002",
    ]
    # GL001's decorator is safe: nothing `test` computes needs a graph (`test_loss` adds
    # `F.nll_loss(...).data[0]`, which has no history).
    assert result.stdout.splitlines()[-1] == "Found 10 problems (8 fixed, 2 remaining)."
    assert "async" not in (project / "mnist_train.py").read_text()


def test_check_gives_no_async_hint_for_other_syntax_errors(project):
    result = CliRunner().invoke(main, ["check", "-q", "py2_logging.py"])
    assert "gradlint migrate" not in result.stdout and "GL000" in result.stdout


def test_migrate_does_not_import_torch(project):
    import sys

    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom gradlint.cli import main\n"
        "CliRunner().invoke(main, ['migrate', '--diff', '.'])\n"
        "sys.exit(1 if 'torch' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=project).returncode == 0


def test_variable_through_a_module_alias_and_its_import_are_removed(tmp_path):
    path = tmp_path / "alias.py"
    path.write_text(
        textwrap.dedent(
            """\
            import torch
            import torch.autograd as autograd
            from torch import autograd as ag


            def make():
                return autograd.Variable(torch.zeros(3), requires_grad=True), ag.Variable(torch.ones(2))
            """
        )
    )
    run(str(path))
    assert path.read_text() == (
        "import torch\n\n\ndef make():\n    return torch.zeros(3, requires_grad=True), torch.ones(2)\n"
    )


def test_module_alias_import_is_kept_while_used(tmp_path):
    path = tmp_path / "alias.py"
    path.write_text("import torch\nimport torch.autograd as autograd\n\nx = autograd.Variable(torch.zeros(3))\ng = autograd.grad\n")
    run(str(path))
    assert path.read_text() == "import torch\nimport torch.autograd as autograd\n\nx = torch.zeros(3)\ng = autograd.grad\n"


def test_comment_above_a_removed_import_is_kept(tmp_path):
    path = tmp_path / "c.py"
    path.write_text("import torch\n# Variable wraps tensors for autograd\nfrom torch.autograd import Variable\n\nx = Variable(torch.zeros(3))\n")
    run(str(path))
    assert path.read_text() == "import torch\n# Variable wraps tensors for autograd\n\nx = torch.zeros(3)\n"


def test_eval_tuple_with_volatile_wrappers_is_removed_as_a_whole(tmp_path):
    path = tmp_path / "e.py"
    path.write_text(
        textwrap.dedent(
            """\
            from torch.autograd import Variable


            def evaluate(model, loader):
                for data, target in loader:
                    target, data = Variable(target), Variable(data, volatile=True)
                    yield model(data), target
            """
        )
    )
    run(str(path))
    assert path.read_text() == (
        "import torch\n\n\n@torch.no_grad()\ndef evaluate(model, loader):\n"
        "    for data, target in loader:\n        yield model(data), target\n"
    )


def test_flags_that_follow_eval_mode_are_dropped_and_the_summary_says_what_to_do(tmp_path):
    source = textwrap.dedent("""\
        import torch.nn as nn
        from torch.autograd import Variable


        class Encoder(nn.Module):
            def one_hidden(self, w, bs):
                return Variable(w.new(1, bs, 3).zero_(), volatile=not self.training)


        def batch(x, train):
            return Variable(x, volatile=not train)
        """)
    path = tmp_path / "lm.py"
    path.write_text(source)
    result = run(str(path))
    assert result.exit_code == 1
    # `Variable` is still used by the flag left for a human: its import stays
    assert path.read_text() == source.replace("Variable(w.new(1, bs, 3).zero_(), volatile=not self.training)", "w.new(1, bs, 3).zero_()")
    lines = result.stdout.splitlines()
    assert lines[1:5] == [
        "Legacy uses: 1 migrated, 1 left for a human.",
        "Applied 1 fixes:",
        "  GL001  volatile-flag  1",
        "1 `volatile=not <module>.training` flag dropped (ignored since PyTorch 0.4). In 0.3 such a flag meant no "
        "graph in eval mode: run evaluation under `torch.no_grad()`; `gradlint check` reports evaluation without it as GL101.",
    ]
    assert lines[6].endswith(
        "lm.py:11:12: GL001 `volatile=not train` has been ignored since PyTorch 0.4: where it is true this call still "
        "records an autograd graph; remove the flag and run the code that passes a true value under `torch.no_grad()`"
    )
    data = json.loads(run("--output-format", "json", str(path)).stdout)
    assert data["eval_mode_flags_dropped"] == 0  # nothing left to drop the second time


def test_the_migrations_are_the_rules_the_catalog_marks():
    from gradlint import catalog

    marked = {code: doc.migrate for code, doc in catalog.load().items() if doc.migrate}
    assert marked == {
        "GL001": "trusted",
        "GL002": "trusted",
        "GL003": "trusted",
        "GL004": "report",
        "GL005": "safe",
        "GL202": "trusted",
        "GL204": "trusted",
    }
    assert set(migrate.migrations()) == set(marked)
    assert migrate.trusted_codes() == {code for code, mark in marked.items() if mark == "trusted"}


def test_migrate_counts_eval_mode_flags_by_the_kind_of_their_fix_not_its_title():
    from gradlint.rules.gl001_volatile_flag import EVAL_MODE_FIX_KIND

    source = (
        "import torch.nn as nn\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "class Encoder(nn.Module):\n"
        "    def one_hidden(self, w, bs):\n"
        "        return Variable(w.new(1, bs, 3).zero_(), volatile=not self.training)\n"
    )
    result = migrate.migrate_source(source, "m.py", LintSettings(frozenset(migrate.migrations())))
    assert result.eval_mode_flags == 1
    lint = lint_source(source, "m.py", LintSettings(frozenset({"GL001"})))
    assert [f.fix.kind for f in lint.findings] == [EVAL_MODE_FIX_KIND]
