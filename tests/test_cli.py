"""The command line: output format, exit codes, fixing, diff, selection and errors."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.cli import main
from gradlint.config import DEFAULT_EXCLUDE
from samples import LEGACY, LEGACY_FIXED



@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.py").write_text(LEGACY)
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.zeros(3)\n")
    return tmp_path


def run(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input)
    return result


def test_text_output_exit_1_and_summary(project):
    result = run("check")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "legacy.py:6:17: GL001 [*] `volatile=True` has been ignored since PyTorch 0.4: this call still records an "
        "autograd graph; use `torch.no_grad()`",
        "legacy.py:11:11: GL003 [*] `loss.sum().data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises "
        "IndexError; use `loss.sum().item()`",
        "Found 2 problems (2 fixable with --fix).",
    ]


def test_clean_file_exit_0(project):
    result = run("check", "clean.py")
    assert result.exit_code == 0
    assert result.stdout == "All checks passed!\n"


def test_quiet_prints_findings_only(project):
    result = run("check", "--quiet", "legacy.py")
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 2
    assert "Found" not in result.stdout


def test_fix_writes_fixed_file_and_second_run_is_clean(project):
    result = run("check", "--fix")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "Found 2 problems (2 fixed, 0 remaining)."
    assert (project / "legacy.py").read_text() == LEGACY_FIXED
    again = run("check", "--fix")
    assert again.exit_code == 0
    assert again.stdout == "All checks passed!\n"
    assert (project / "legacy.py").read_text() == LEGACY_FIXED


def test_diff_prints_patch_writes_nothing_exit_1(project):
    result = run("check", "--diff", "legacy.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- legacy.py\n+++ legacy.py\n@@ ")
    assert "+@torch.no_grad()\n" in result.stdout
    assert "-from torch.autograd import Variable\n" in result.stdout
    assert "Would fix 2 problems." in result.stderr
    assert (project / "legacy.py").read_text() == LEGACY
    assert run("check", "--diff", "clean.py").exit_code == 0


def test_diff_output_applies_with_git_apply(project):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    patch = run("check", "--diff", "legacy.py").stdout
    subprocess.run(["git", "apply", "-"], cwd=project, input=patch.encode(), check=True)
    assert (project / "legacy.py").read_text() == LEGACY_FIXED


def test_unsafe_fixes_are_hidden_without_flag(project):
    # GL001's fix is safe; check the plumbing with a rule option that makes nothing unsafe:
    # [*] marks only applicable fixes, so with --select GL004 (no fix) there is none.
    result = run("check", "--select", "GL004", "legacy.py")
    assert result.exit_code == 0
    assert "[*]" not in result.stdout


def test_summary_counts_fixes_only_when_there_are_some(project):
    (project / "typo.py").write_text("import torch.nn as nn\nm = nn.Linear(2, 2)\nfor p in m.parameters():\n    p.require_grad = False\n")
    (project / "broken.py").write_text("def f(:\n    pass\n")
    result = run("check", "--output-format", "concise", "broken.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "Found 1 problem."
    # GL303's fix is unsafe only: nothing --fix would apply, one that --unsafe-fixes would.
    result = run("check", "--output-format", "concise", "broken.py", "typo.py")
    assert result.stdout.splitlines()[-2:] == ["Found 2 problems.", "1 fixable with --fix --unsafe-fixes."]
    result = run("check", "--output-format", "concise", "legacy.py", "typo.py")
    assert result.stdout.splitlines()[-2:] == ["Found 3 problems (2 fixable with --fix).", "1 more fixable with --fix --unsafe-fixes."]


def test_select_ignore_and_prefixes(project):
    assert run("check", "--select", "GL003", "legacy.py").stdout.count("GL0") == 1
    assert "GL003" not in run("check", "--ignore", "GL003", "legacy.py").stdout
    assert run("check", "--select", "GL00", "--ignore", "GL001,GL003", "legacy.py").exit_code == 0
    assert run("check", "--select", "ALL", "legacy.py").exit_code == 1


def test_unknown_code_is_usage_error(project):
    result = run("check", "--select", "GL999")
    assert result.exit_code == 2
    assert result.stderr == "error: unknown rule code or prefix 'GL999'\n"


def test_missing_paths_are_findings_and_the_run_goes_on(project):
    # As Ruff's E902, and as a file a directory walk cannot read: GL000, exit 1.
    result = run("check", "--output-format", "concise", "nope.py", "legacy.py", "gone/x.ipynb")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "gone/x.ipynb:1:1: GL000 cannot read file: No such file or directory"
    assert lines[3] == "nope.py:1:1: GL000 cannot read file: No such file or directory"
    assert lines[1].startswith("legacy.py:6:17: GL001 ") and lines[-1] == "Found 4 problems (2 fixable with --fix)."
    assert result.stderr == ""
    # GL000 not selected: a warning, as Ruff's when E902 is off, and the others are checked.
    result = run("check", "--output-format", "concise", "--select", "GL001", "nope.py", "legacy.py")
    assert result.exit_code == 1
    assert result.stderr == "warning: nope.py: No such file or directory\n"
    assert result.stdout.splitlines()[0].startswith("legacy.py:6:17: GL001 ")
    # --force-exclude drops an excluded path before it is looked for.
    (project / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["vendor"]\n')
    result = run("check", "--force-exclude", "vendor/nope.py")
    assert (result.exit_code, result.stdout) == (0, "")
    # `migrate` has nothing to report a missing path with: a usage error.
    result = run("migrate", "nope.py")
    assert result.exit_code == 2
    assert result.stderr == "error: nope.py: No such file or directory\n"


def test_json_output_shape(project):
    result = run("check", "--output-format", "json", "legacy.py")
    assert result.exit_code == 1
    items = json.loads(result.stdout)
    assert [i["code"] for i in items] == ["GL001", "GL003"]
    first = items[0]
    assert set(first) == {"cell", "code", "end_location", "filename", "fix", "location", "message", "noqa_row", "url"}
    assert first["filename"] == "legacy.py"
    assert first["location"] == {"row": 6, "column": 17}
    assert first["end_location"] == {"row": 6, "column": 43}
    assert first["url"].endswith("/GL001/")
    fix = first["fix"]
    assert fix["applicability"] == "safe"
    assert fix["message"] == "Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`"
    # Applying the edits (bottom-up) to the file gives what --fix gives for that finding alone.
    lines = LEGACY.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    text = LEGACY
    for edit in sorted(fix["edits"], key=lambda e: (e["location"]["row"], e["location"]["column"]), reverse=True):
        start = offsets[edit["location"]["row"] - 1] + edit["location"]["column"] - 1
        end = offsets[edit["end_location"]["row"] - 1] + edit["end_location"]["column"] - 1
        text = text[:start] + edit["content"] + text[end:]
    assert "@torch.no_grad()\ndef evaluate" in text
    assert "model(x.detach())" in text
    assert "Variable" not in text
    assert items[1]["fix"]["edits"] == [
        {"content": "item()", "location": {"row": 11, "column": 22}, "end_location": {"row": 11, "column": 29}}
    ]


def test_json_no_findings_is_empty_list(project):
    result = run("check", "--output-format", "json", "clean.py")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


def test_syntax_error_is_gl000_and_run_goes_on(project):
    (project / "broken.py").write_text("from torch.autograd import Variable\nprint Variable(x)\n")
    result = run("check")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("broken.py:2:1: GL000 syntax error: Missing parentheses in call to 'print'")
    assert any(line.startswith("legacy.py:6:17: GL001") for line in lines)


def test_binary_and_undecodable_files_get_one_line_each(project):
    (project / "blob.py").write_bytes(b"import torch\x00\x01Variable")
    (project / "latin.py").write_bytes(b"from torch.autograd import Variable\nname = '\xe9'\n")
    result = run("check", "blob.py", "latin.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "blob.py:1:1: GL000 binary file (contains NUL bytes), not Python source",
        "latin.py:1:1: GL000 cannot decode as UTF-8: invalid byte 0xe9 on line 2",
    ]


def test_noqa_comments(project):
    (project / "legacy.py").write_text(
        textwrap.dedent(
            """\
            from torch.autograd import Variable
            a = Variable(x)  # noqa
            b = Variable(x)  # noqa: GL002
            c = Variable(x)  # noqa: GL001, E501
            d = Variable(x)  # NOQA:GL003,GL002
            e = "# noqa"; f = Variable(x)
            """
        )
    )
    result = run("check", "--quiet")
    assert [line.split(":")[1] for line in result.stdout.splitlines()] == ["4", "6"]


def test_file_level_noqa(project):
    (project / "legacy.py").write_text("# gradlint: noqa\n" + LEGACY)
    assert run("check", "legacy.py").exit_code == 0
    (project / "legacy.py").write_text("# gradlint: noqa: GL001\n" + LEGACY)
    assert [line.split(": ")[1].split()[0] for line in run("check", "-q", "legacy.py").stdout.splitlines()] == ["GL003"]


def test_config_select_and_per_file_ignores(project):
    (project / "pyproject.toml").write_text(
        '[tool.gradlint]\nselect = ["GL003"]\nper-file-ignores = { "scripts/*" = ["GL003"] }\n'
    )
    (project / "scripts").mkdir()
    (project / "scripts" / "run.py").write_text(LEGACY)
    result = run("check", "-q")
    assert result.stdout.splitlines() == [
        "legacy.py:11:11: GL003 [*] `loss.sum().data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises "
        "IndexError; use `loss.sum().item()`"
    ]
    # CLI --select replaces the configured selection
    assert "GL001" in run("check", "-q", "--select", "GL001", "legacy.py").stdout


def test_config_exclude_and_default_excludes(project):
    for d in (".venv/lib", "build", "node_modules", "env_custom", "vendor"):
        (project / d).mkdir(parents=True)
        (project / d / "x.py").write_text(LEGACY)
    (project / "env_custom" / "pyvenv.cfg").write_text("home = /usr\n")
    (project / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["vendor"]\n')
    files = {line.split(":")[0] for line in run("check", "-q").stdout.splitlines()}
    assert files == {"legacy.py"}
    # a file named explicitly is checked even when excluded, unless --force-exclude
    assert run("check", "-q", "vendor/x.py").exit_code == 1
    assert run("check", "-q", "--force-exclude", "vendor/x.py").exit_code == 0


@pytest.mark.parametrize(
    "content,message",
    [
        ('[tool.gradlint]\nselct = ["GL001"]\n', "unknown key 'selct' in [tool.gradlint]"),
        ('[tool.gradlint]\nignore = ["GL777"]\n', "unknown rule code or prefix 'GL777'"),
        ('[tool.gradlint]\nselect = "GL001"\n', "'select' must be a list of strings"),
        ("[tool.gradlint\n", "invalid TOML"),
        ('[tool.gradlint]\nfix-grad-guard = "enable_grad"\n', "'fix-grad-guard' must be one of 'no_grad', 'inference_mode'"),
    ],
)
def test_config_errors_exit_2(project, content, message):
    (project / "pyproject.toml").write_text(content)
    result = run("check")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_nearest_config_governs_each_file(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL001"]\n')
    sub = project / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL003"]\n')
    (sub / "legacy.py").write_text(LEGACY)
    codes = [line.split(": ")[1].split()[0] for line in run("check", "-q").stdout.splitlines()]
    assert codes == ["GL001", "GL003"]  # legacy.py by the root config, sub/legacy.py by its own


def test_explicit_config_file(project):
    (project / "gl.toml").write_text('select = ["GL003"]\n')
    out = run("check", "-q", "--config", "gl.toml", "legacy.py").stdout
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == ["GL003"]
    result = run("check", "--config", "missing.toml")
    assert result.exit_code == 2 and "missing.toml: config file not found" in result.stderr


def test_rules_and_explain(project):
    table = run("rules").stdout.splitlines()
    assert table[0].split() == ["CODE", "NAME", "DEFAULT", "FIX", "SUMMARY"]
    assert table[2].split()[:4] == ["GL001", "volatile-flag", "on", "varies"]
    text = run("explain", "GL001").stdout
    assert text.startswith("# volatile-flag (GL001)\n")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## References"):
        assert section in text
    assert run("explain", "variable-wrapper").stdout.startswith("# variable-wrapper (GL002)")
    bad = run("explain", "GL999")
    assert bad.exit_code == 2 and bad.stderr == "error: unknown rule 'GL999' (see `gradlint rules`)\n"
    rows = json.loads(run("rules", "--output-format", "json").stdout)
    assert rows[1]["code"] == "GL001" and rows[1]["fix"] == "varies"


def test_rule_is_explain_by_ruffs_name(project):
    assert run("rule", "GL001").stdout == run("explain", "GL001").stdout
    assert run("rule", "variable-wrapper").stdout.startswith("# variable-wrapper (GL002)\n")
    every = run("rule", "--all").stdout
    assert [line for line in every.splitlines() if line.startswith("# ")][:2] == ["# unparsable-file (GL000)", "# volatile-flag (GL001)"]
    headings = [line for line in every.splitlines() if re.fullmatch(r"# [a-z0-9-]+ \(GL[0-9]{3}\)", line)]
    assert len(headings) == len(json.loads(run("rules", "--output-format", "json").stdout))
    one = json.loads(run("rule", "--output-format", "json", "GL003").stdout)
    assert (one["code"], one["name"], one["fix"]) == ("GL003", "data-index-scalar", "varies")
    assert one["explanation"] + "\n" == run("explain", "GL003").stdout
    assert [r["code"] for r in json.loads(run("rule", "--all", "--output-format", "json").stdout)][:2] == ["GL000", "GL001"]
    for args in ([], ["GL001", "--all"]):
        bad = run("rule", *args)
        assert (bad.exit_code, bad.stderr) == (2, "error: give either a rule (a code such as GL001, or a name) or --all\n")
    bad = run("rule", "GL999")
    assert (bad.exit_code, bad.stderr) == (2, "error: unknown rule 'GL999' (see `gradlint rules`)\n")


def test_show_files_lists_what_would_be_checked_and_exits_0(project):
    (project / "sub").mkdir()
    (project / "sub" / "nb.ipynb").write_text("{}\n")
    (project / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["clean.py"]\n')
    result = run("check", "--show-files")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "legacy.py\nsub/nb.ipynb\n", "")
    assert run("check", "--show-files", "clean.py", "nope.py").stdout == "clean.py\nnope.py\n"
    assert run("check", "--show-files", "--force-exclude", "clean.py").stdout == ""
    assert run("check", "--show-files", "--stdin-filename", "x.py", "-").stdout == "x.py\n"


def test_show_settings_prints_what_governs_the_first_file(project):
    (project / "pyproject.toml").write_text(
        '[tool.gradlint]\nselect = ["GL0"]\nignore = ["GL004"]\nextend-exclude = ["vendor"]\n'
        'per-file-ignores = { "legacy.py" = ["GL003"] }\nfix-grad-guard = "inference_mode"\n'
    )
    result = run("check", "--show-settings", "--extend-select", "GL106", "legacy.py", "clean.py")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "Resolved settings for: clean.py\n"
        f"Settings path: {project / 'pyproject.toml'}\n"
        f"Project root: {project.resolve()}\n"
        "\n"
        "# The rules checked in this file (after per-file-ignores)\n"
        'select = ["GL000", "GL001", "GL002", "GL003", "GL005", "GL106"]\n'
        f'exclude = {json.dumps(list(DEFAULT_EXCLUDE) + ["vendor"])}\n'
        'per-file-ignores = {"legacy.py" = ["GL003"]}\n'
        'fix-grad-guard = "inference_mode"\n'
        "respect-gitignore = true\n"
    )
    shown = run("check", "--show-settings", "--no-respect-gitignore", "legacy.py").stdout.splitlines()
    assert shown[5] == 'select = ["GL000", "GL001", "GL002", "GL005"]' and shown[-1] == "respect-gitignore = false"
    (project / "pyproject.toml").unlink()
    assert run("check", "--show-settings", "legacy.py").stdout.splitlines()[1] == "Settings path: none (the defaults)"
    (project / "empty").mkdir()
    result = run("check", "--show-settings", "empty")
    assert (result.exit_code, result.stderr) == (2, "error: --show-settings: no file to show the settings of under the given path(s)\n")


def test_version(project):
    from gradlint import __version__

    assert run("--version").stdout == f"gradlint, version {__version__}\n"
    assert run("check", "--version").stdout == f"gradlint, version {__version__}\n"


def test_read_only_file_is_not_fixed(project):
    # Refused for root too: no write permission bit means the owner wants the file left alone.
    path = project / "legacy.py"
    path.chmod(0o444)
    result = run("check", "--fix")
    assert result.exit_code == 1
    assert "legacy.py: file is read-only; not written" in result.stderr
    assert path.read_text() == LEGACY


def test_cli_does_not_import_torch():
    code = "import sys, gradlint.cli; sys.exit(1 if 'torch' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom gradlint.cli import main\n"
        "CliRunner().invoke(main, ['check', '--select', 'ALL', sys.argv[1]])\n"
        "sys.exit(1 if 'torch' in sys.modules else 0)"
    )
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "GL001" / "evaluate_volatile.py"
    assert subprocess.run([sys.executable, "-c", code, str(fixture)]).returncode == 0


def test_module_entry_point(project):
    proc = subprocess.run([sys.executable, "-m", "gradlint", "check", "-q", "legacy.py"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout.startswith("legacy.py:6:17: GL001 ")
