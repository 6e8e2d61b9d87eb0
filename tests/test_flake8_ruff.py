"""Living beside flake8 and Ruff, tested with the real tools.

- `flake8 --select GL` runs gradlint's rules through the plugin entry point;
- `# noqa: GLxxx` comments survive Ruff's RUF100/RUF102 fixes once
  `lint.external = ["GL"]` is set, and flake8-noqa (flake8's counterpart of
  RUF100) sees them as used because the plugin reports the findings they silence.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from samples import GL001_MESSAGE, GL002_MESSAGE, GL003_MESSAGE, LEGACY

GL001 = f"GL001 {GL001_MESSAGE}"
GL002 = f"GL002 {GL002_MESSAGE}"
GL003 = f"GL003 {GL003_MESSAGE}"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.py").write_text(LEGACY)
    return tmp_path


def flake8(*args, cwd, input=None):
    pytest.importorskip("flake8")
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args], cwd=cwd, capture_output=True, text=True, input=input
    )


def ruff(*args, cwd):
    pytest.importorskip("ruff")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True)


# -- flake8 plugin ------------------------------------------------------------


def test_flake8_select_gl_runs_gradlint(project):
    proc = flake8("--select", "GL", "legacy.py", cwd=project)
    assert proc.returncode == 1, proc.stderr
    # Same rows and 1-based columns as `gradlint check`.
    assert proc.stdout.splitlines() == [f"legacy.py:6:17: {GL001}", f"legacy.py:11:11: {GL003}"]


def test_flake8_plugin_is_registered(project):
    proc = flake8("--version", cwd=project)
    assert "gradlint: " in proc.stdout


def test_flake8_filters_with_its_own_options_and_noqa(project):
    (project / "legacy.py").write_text(
        "import torch\nfrom torch.autograd import Variable\n"
        "a = Variable(x)  # noqa: GL002\n"
        "b = Variable(x)  # noqa: E501\n"
        "c = Variable(x)\n"
    )
    proc = flake8("--select", "GL", "legacy.py", cwd=project)
    assert proc.stdout.splitlines() == [f"legacy.py:4:5: {GL002}", f"legacy.py:5:5: {GL002}"]
    assert flake8("--select", "GL", "--extend-ignore", "GL002", "legacy.py", cwd=project).stdout == ""
    # --disable-noqa shows what the comment silences: the plugin reports it to flake8.
    assert len(flake8("--select", "GL", "--disable-noqa", "legacy.py", cwd=project).stdout.splitlines()) == 3


def test_flake8_plugin_follows_gradlint_config(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL003"]\n')
    assert flake8("--select", "GL", "legacy.py", cwd=project).stdout.splitlines() == [f"legacy.py:6:17: {GL001}"]
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL999"]\n')
    proc = flake8("--select", "GL", "legacy.py", cwd=project)
    assert proc.stdout == (
        "legacy.py:1:1: GL000 gradlint configuration error: "
        f"{project / 'pyproject.toml'}: unknown rule code or prefix 'GL999'\n"
    )


def test_flake8_reads_stdin(project):
    proc = flake8("--select", "GL", "--stdin-display-name", "eval.py", "-", cwd=project, input=LEGACY)
    assert proc.stdout.splitlines() == [f"eval.py:6:17: {GL001}", f"eval.py:11:11: {GL003}"]


def test_flake8_noqa_sees_gradlint_noqa_comments_as_used(project):
    pytest.importorskip("flake8_noqa")
    (project / "legacy.py").write_text(
        "import torch\nfrom torch.autograd import Variable\n"
        "a = Variable(x)  # noqa: GL002\n"
        "b = 1  # noqa: GL002\n"
    )
    proc = flake8("--select", "GL,NQA", "legacy.py", cwd=project)
    # Line 3's comment silences a real GL002 and is left alone; line 4's silences nothing.
    assert proc.stdout.splitlines() == ['legacy.py:4:8: NQA102 "# noqa: GL002" has no matching violations']


# -- Ruff ---------------------------------------------------------------------

NOQA_SOURCE = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable

    a = Variable(x)  # noqa: GL002
    b = Variable(x)  # noqa: GL002, E501
    """
)


@pytest.mark.parametrize(
    "config,expected",
    [
        # Without it, Ruff takes GL002 for an unknown code and its fix deletes it.
        ('[lint]\nselect = ["RUF"]\n', ["a = Variable(x)", "b = Variable(x)"]),
        # With it, only E501 (a Ruff code that is not used here) goes.
        ('[lint]\nselect = ["RUF"]\nexternal = ["GL"]\n', ["a = Variable(x)  # noqa: GL002", "b = Variable(x)  # noqa: GL002"]),
    ],
)
def test_ruff_keeps_gradlint_noqa_with_lint_external(project, config, expected):
    (project / "ruff.toml").write_text(config)
    (project / "model.py").write_text(NOQA_SOURCE)
    proc = ruff("check", "--fix", "--no-cache", "model.py", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (project / "model.py").read_text().splitlines()[3:] == expected


def test_ruff_external_in_pyproject(project):
    (project / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["RUF100"]\nexternal = ["GL"]\n')
    (project / "model.py").write_text(NOQA_SOURCE)
    proc = ruff("check", "--no-cache", "--output-format", "concise", "model.py", cwd=project)
    assert proc.returncode == 1
    # Only the Ruff code is reported unused; GL002 is neither unused nor unknown.
    assert proc.stdout.splitlines()[0] == "model.py:5:18: RUF100 [*] Unused `noqa` directive (non-enabled: `E501`)"
    assert proc.stdout.splitlines()[1] == "Found 1 error."
    # and gradlint itself still honours the comments Ruff left
    from click.testing import CliRunner

    from gradlint.cli import main

    assert CliRunner().invoke(main, ["check", "model.py"]).exit_code == 0
