"""Ruff's adoption flags: --exit-zero, --exit-non-zero-on-fix, --show-fixes, --add-noqa,
--output-file, inline --config, and the warning for a run with no file to check.

Where Ruff has the same flag, the exit codes are compared with Ruff's own on a
file that has a fixable finding (an unused import for Ruff, legacy autograd
code for gradlint).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from samples import GL001_MESSAGE, LEGACY, LEGACY_FIXED

GL003_MESSAGE = (
    "`loss.sum().data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises IndexError; use `loss.sum().item()`"
)


def gradlint(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True
    )


def ruff(*args, cwd):
    pytest.importorskip("ruff")
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F401", *args],
        cwd=cwd, capture_output=True, text=True,
    )


@pytest.fixture
def project(tmp_path):
    (tmp_path / "legacy.py").write_text(LEGACY)
    (tmp_path / "unused.py").write_text("import os\nimport sys\n\nprint(os.sep)\n")
    (tmp_path / "empty").mkdir()
    return tmp_path


def reset(project):
    (project / "legacy.py").write_text(LEGACY)
    (project / "unused.py").write_text("import os\nimport sys\n\nprint(os.sep)\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "flags, expected",
    [
        ((), 1),
        (("--exit-zero",), 0),
        (("--fix",), 0),
        (("--fix", "--exit-non-zero-on-fix"), 1),
        (("--fix", "--exit-non-zero-on-fix", "--exit-zero"), 2),
        (("--diff",), 1),
        (("--diff", "--exit-zero"), 0),
        (("--add-noqa", "--fix"), 2),
        (("--add-noqa",), 0),
        (("--statistics", "--output-format", "sarif"), 2),
        (("--statistics", "--output-format", "github"), 2),
        (("--statistics", "--output-format", "json"), 1),
    ],
)
def test_exit_codes_match_ruff(project, flags, expected):
    reset(project)
    ours = gradlint(*flags, "legacy.py", cwd=project)
    theirs = ruff(*flags, "unused.py", cwd=project)
    assert (ours.returncode, theirs.returncode) == (expected, expected), (ours.stderr, theirs.stderr)


@pytest.mark.slow
def test_no_python_files_warns_on_stderr_with_ruffs_words(project):
    ours = gradlint("empty", cwd=project)
    theirs = ruff("empty", cwd=project)
    assert ours.stderr == theirs.stderr == "warning: No Python files found under the given path(s)\n"
    assert (ours.returncode, theirs.returncode) == (0, 0)
    # Ruff still says "All checks passed!"; nothing was checked, so gradlint does not.
    assert ours.stdout == ""
    assert gradlint("--output-format", "json", "empty", cwd=project).stdout == "[]\n"


def test_exit_zero_keeps_the_report_and_error_exits(project):
    proc = gradlint("--exit-zero", "legacy.py", cwd=project)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "Found 2 problems (2 fixable with --fix)."
    (project / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL8"]\n')
    assert gradlint("--exit-zero", "legacy.py", cwd=project).returncode == 2


def test_show_fixes_lists_fixed_rules_per_file_like_ruff(project):
    (project / "other.py").write_text("import torch\nloss = torch.nn.functional.mse_loss(x, y)\nx = loss.data[0]\nz = loss.data[0]\n")
    proc = gradlint("--fix", "--show-fixes", "legacy.py", "other.py", cwd=project)
    assert proc.returncode == 0
    assert proc.stdout == (
        "\n"
        "Fixed 4 problems:\n"
        "- legacy.py:\n"
        "    1 × GL001 (volatile-flag)\n"
        "    1 × GL003 (data-index-scalar)\n"
        "- other.py:\n"
        "    2 × GL003 (data-index-scalar)\n"
        "\n"
        "Found 4 problems (4 fixed, 0 remaining).\n"
    )
    assert (project / "legacy.py").read_text() == LEGACY_FIXED
    # Without --fix there is nothing fixed to show.
    reset(project)
    assert gradlint("--show-fixes", "-q", "legacy.py", cwd=project).stdout == gradlint("-q", "legacy.py", cwd=project).stdout


def test_output_file_takes_the_report_and_creates_its_directory(project):
    proc = gradlint("--output-format", "json", "--output-file", "reports/gl.json", "legacy.py", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "")
    import json

    items = json.loads((project / "reports" / "gl.json").read_text())
    assert [(i["code"], i["location"]["row"], i["location"]["column"]) for i in items] == [("GL001", 6, 17), ("GL003", 11, 11)]
    # the default concise text, without colour, in the file
    proc = gradlint("-o", "out.txt", "legacy.py", cwd=project)
    assert (project / "out.txt").read_text().splitlines() == [
        f"legacy.py:6:17: GL001 [*] {GL001_MESSAGE}",
        f"legacy.py:11:11: GL003 [*] {GL003_MESSAGE}",
        "Found 2 problems (2 fixable with --fix).",
    ]
    proc = gradlint("--diff", "-o", "fix.patch", "legacy.py", cwd=project)
    assert proc.returncode == 1 and proc.stdout == ""
    assert (project / "fix.patch").read_text().startswith("--- legacy.py\n+++ legacy.py\n")


def test_inline_config_overrides_pyproject(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL003"]\n')
    assert [line.split()[1] for line in gradlint("-q", "legacy.py", cwd=project).stdout.splitlines()] == ["GL001"]
    proc = gradlint("-q", "--config", 'ignore = ["GL001"]', "legacy.py", cwd=project)
    assert [line.split()[1] for line in proc.stdout.splitlines()] == ["GL003"]
    proc = gradlint("-q", "--config", "ignore = []", "--config", 'select = ["GL001"]', "legacy.py", cwd=project)
    assert [line.split()[1] for line in proc.stdout.splitlines()] == ["GL001"]
    # A path still names a config file, and a fragment overrides it too.
    (project / "gl.toml").write_text('select = ["GL003"]\n')
    assert [line.split()[1] for line in gradlint("-q", "--config", "gl.toml", "legacy.py", cwd=project).stdout.splitlines()] == ["GL003"]
    proc = gradlint("-q", "--config", "gl.toml", "--config", 'select = ["GL001"]', "legacy.py", cwd=project)
    assert [line.split()[1] for line in proc.stdout.splitlines()] == ["GL001"]


@pytest.mark.parametrize(
    "value, message",
    [
        ('ignor = ["GL001"]', "error: --config 'ignor = [\"GL001\"]': unknown key 'ignor' in [tool.gradlint] (known keys: exclude, extend-exclude, extend-select, fix-grad-guard, ignore, per-file-ignores, preview, respect-gitignore, select)\n"),
        ('select = ["XX1"]', "error: --config 'select = [\"XX1\"]': unknown rule code or prefix 'XX1'\n"),
        ("select = GL001", "error: --config 'select = GL001': not a valid `key = value` TOML fragment: Invalid value (at line 1, column 10)\n"),
        ("missing.toml", "error: --config missing.toml: config file not found\n"),
    ],
)
def test_inline_config_errors_exit_2(project, value, message):
    proc = gradlint("--config", value, "legacy.py", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message)


# -- --add-noqa -------------------------------------------------------------------

NOQA_BEFORE = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable
    loss = torch.nn.functional.mse_loss(x, y)
    a = Variable(x, volatile=True)  # noqa:E501
    b = Variable(x,
                 volatile=True)
    c = loss.data[0]   # the loss
    d = (loss.data[0] +
         loss.data[0])
    f = Variable(y, volatile=True)  # noqa
    g = loss.data[0];  h = loss.data[0]
    """
)
NOQA_AFTER = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable
    loss = torch.nn.functional.mse_loss(x, y)
    a = Variable(x, volatile=True)  # noqa: E501, GL001
    b = Variable(x,  # noqa: GL001
                 volatile=True)
    c = loss.data[0]   # the loss  # noqa: GL003
    d = (loss.data[0] +  # noqa: GL003
         loss.data[0])  # noqa: GL003
    f = Variable(y, volatile=True)  # noqa
    g = loss.data[0];  h = loss.data[0]  # noqa: GL003
    """
)


def test_add_noqa_comments_each_finding_line_and_is_idempotent(project):
    path = project / "adopt.py"
    path.write_bytes(NOQA_BEFORE.encode())
    proc = gradlint("--add-noqa", "adopt.py", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "Added 6 noqa directives.\n")
    assert path.read_text() == NOQA_AFTER
    assert gradlint("adopt.py", cwd=project).returncode == 0
    proc = gradlint("--add-noqa", "adopt.py", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert path.read_text() == NOQA_AFTER


def test_add_noqa_keeps_crlf_and_puts_the_comment_where_it_works(project):
    """A line that ends inside a string or with a backslash cannot take a
    comment: the directive goes at the end of the logical line, which covers it."""
    path = project / "crlf.py"
    source = 'import torch\r\nloss = torch.nn.functional.mse_loss(x, y)\r\na = loss.data[0]\r\nb = f(loss.data[0], """\r\ntext""")\r\nc = loss.data[0] + \\\r\n    1\r\n'
    path.write_bytes(source.encode())
    proc = gradlint("--add-noqa", "crlf.py", cwd=project)
    assert (proc.returncode, proc.stderr) == (0, "Added 3 noqa directives.\n")
    assert path.read_bytes() == (
        'import torch\r\nloss = torch.nn.functional.mse_loss(x, y)\r\na = loss.data[0]  # noqa: GL003\r\nb = f(loss.data[0], """\r\ntext""")  # noqa: GL003\r\n'
        'c = loss.data[0] + \\\r\n    1  # noqa: GL003\r\n'
    ).encode()
    assert gradlint("crlf.py", cwd=project).returncode == 0
    assert gradlint("--add-noqa", "crlf.py", cwd=project).stderr == ""


def test_add_noqa_merges_like_ruff(project):
    """Ruff rewrites an existing `# noqa:E501` as `# noqa: E501, F401`: the same shape here."""
    (project / "r.py").write_text("import os  # noqa:E501\n")
    assert ruff("--add-noqa", "r.py", cwd=project).returncode == 0
    (project / "g.py").write_text("import torch\nv = torch.autograd.Variable(x, volatile=True)  # noqa:E501\n")
    assert gradlint("--add-noqa", "--select", "GL001", "g.py", cwd=project).returncode == 0
    ruff_comment = (project / "r.py").read_text().split("#", 1)[1]
    ours = (project / "g.py").read_text().split("#", 1)[1]
    assert ruff_comment.replace("F401", "CODE") == ours.replace("GL001", "CODE") == " noqa: E501, CODE\n"


def test_add_noqa_in_a_notebook_changes_only_the_finding_lines_of_its_json(project):
    import json

    nb = {
        "cells": [
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": ["import torch\n", "loss = torch.nn.functional.mse_loss(x, y)"]},
            {"cell_type": "markdown", "metadata": {}, "source": ["# é"]},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": ["%time x = 1\n", "print(loss.data[0])"]},
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(nb, indent=1) + "\n"
    (project / "nb.ipynb").write_text(text)
    proc = gradlint("--add-noqa", "nb.ipynb", cwd=project)
    assert (proc.returncode, proc.stderr) == (0, "Added 1 noqa directive.\n")
    expected = text.replace('"print(loss.data[0])"', '"print(loss.data[0])  # noqa: GL003"')
    assert (project / "nb.ipynb").read_text() == expected
    assert gradlint("nb.ipynb", cwd=project).returncode == 0


def test_inline_config_works_for_migrate_and_verify_too(project):
    def migrate(*args):
        return subprocess.run(
            [sys.executable, "-m", "gradlint", "migrate", "--diff", *args, "legacy.py"], cwd=project, capture_output=True, text=True
        )

    assert "+    print(loss.sum().item())" in migrate().stdout
    proc = migrate("--config", 'ignore = ["GL003"]')
    assert proc.returncode == 1 and "print(loss.sum().item())" not in proc.stdout and "@torch.no_grad()" in proc.stdout
    proc = migrate("--config", "ignore = 3")
    assert (proc.returncode, proc.stderr) == (2, "error: --config 'ignore = 3': 'ignore' must be a list of strings\n")
    proc = subprocess.run(
        [sys.executable, "-m", "gradlint", "verify", "--config", 'selec = ["GL1"]', "legacy.py"],
        cwd=project, capture_output=True, text=True,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: --config 'selec = [\"GL1\"]': unknown key 'selec'")


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_statistics_in_a_format_without_counts_is_a_usage_error(project, fmt):
    proc = gradlint("--statistics", "--output-format", fmt, "legacy.py", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2, "", f"error: --statistics cannot be printed as {fmt}: use --output-format concise, full or json\n"
    )
