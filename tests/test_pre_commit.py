"""The pre-commit hooks, end to end with the real pre-commit.

A snapshot of this checkout (committed and uncommitted files alike) becomes a
hook repository; a scratch project uses it from its .pre-commit-config.yaml,
as users do, and pre-commit installs gradlint into its own virtualenv from
it. That install needs the package index: set GRADLINT_OFFLINE=1 (or
deselect `-m "not network"`) to skip these tests without one. The documented
`repo: local` configuration runs the gradlint of the test environment, and
needs no network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]


def network(test):
    """The hook repository's tests: pre-commit installs gradlint from the package index."""
    test = pytest.mark.network(test)
    return pytest.mark.skipif(bool(os.environ.get("GRADLINT_OFFLINE")), reason="GRADLINT_OFFLINE is set")(test)

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable


    def evaluate(model, x):
        out = model(Variable(x, volatile=True))
        return out.argmax(1)
    """
)
LEGACY_FIXED = textwrap.dedent(
    """\
    import torch


    @torch.no_grad()
    def evaluate(model, x):
        out = model(x.detach())
        return out.argmax(1)
    """
)
GL001_LINE = (
    "model.py:6:17: GL001 [*] `volatile=True` has been ignored since PyTorch 0.4: this call still records an "
    "autograd graph; use `torch.no_grad()`"
)
# A clean notebook: the jupyter file type must not break the hook.
NOTEBOOK = {
    "cells": [{"cell_type": "code", "execution_count": None, "id": "a1", "metadata": {}, "outputs": [], "source": ["x = 1\n"]}],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
GIT_ENV = {
    "GIT_AUTHOR_NAME": "gradlint tests",
    "GIT_AUTHOR_EMAIL": "tests@gradlint.invalid",
    "GIT_COMMITTER_NAME": "gradlint tests",
    "GIT_COMMITTER_EMAIL": "tests@gradlint.invalid",
}


def git(*args, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.run(["git", *args], cwd=cwd, env={**env, **GIT_ENV}, capture_output=True, text=True, check=True)
    return proc.stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple:
    """(path, rev) of a git repository holding this checkout as it is now."""
    repo = tmp_path_factory.mktemp("hook-repo")
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT).split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / name)
    assert (repo / ".pre-commit-hooks.yaml").is_file()
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "snapshot", cwd=repo)
    return repo, git("rev-parse", "HEAD", cwd=repo).strip()


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    # Shared by the tests of this module: pre-commit builds the hook environment once.
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path, hook_repo) -> Path:
    repo, rev = hook_repo
    (tmp_path / ".pre-commit-config.yaml").write_text(
        textwrap.dedent(
            f"""\
            repos:
              - repo: {repo.as_posix()}
                rev: {rev}
                hooks:
                  - id: gradlint
                  - id: gradlint-fix
            """
        )
    )
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["vendor"]\n')
    (tmp_path / "model.py").write_text(LEGACY)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "old.py").write_text(LEGACY)
    (tmp_path / "stubs.pyi").write_text("def f(x: int) -> int: ...\n")
    (tmp_path / "explore.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    git("init", "-q", cwd=tmp_path)
    git("add", "-A", cwd=tmp_path)
    return tmp_path


def pre_commit(hook: str, cwd: Path, home: Path, path: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    if path:
        env["PATH"] = path + os.pathsep + env.get("PATH", "")
    env.pop("GRADLINT_OUTPUT_FORMAT", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", hook, "--all-files", "--color", "never"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@network
def test_check_hook_fails_and_prints_the_finding(project, pre_commit_home):
    proc = pre_commit("gradlint", project, pre_commit_home)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert GL001_LINE in lines
    # vendor/ is excluded by the project's config even though pre-commit names the file.
    assert not any(line.startswith("vendor/") for line in lines)
    assert "Found 1 problem (1 fixable with --fix)." in lines
    assert (project / "model.py").read_text() == LEGACY


@network
def test_fix_hook_fixes_then_passes(project, pre_commit_home):
    first = pre_commit("gradlint-fix", project, pre_commit_home)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout
    assert "Found 1 problem (1 fixed, 0 remaining)." in first.stdout
    assert (project / "model.py").read_text() == LEGACY_FIXED
    assert (project / "vendor" / "old.py").read_text() == LEGACY
    second = pre_commit("gradlint-fix", project, pre_commit_home)
    assert second.returncode == 0, second.stdout + second.stderr
    assert (project / "model.py").read_text() == LEGACY_FIXED
    assert pre_commit("gradlint", project, pre_commit_home).returncode == 0


def _yaml_blocks(text: str) -> list:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def test_documented_local_hook_works_without_a_tag_or_the_network(tmp_path, tmp_path_factory):
    # The snippet users paste, as the README and the pre-commit page print it: no `rev:`
    # that names a tag the repository does not have.
    page = (ROOT / "docs" / "integrations" / "pre-commit.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    snippet = _yaml_blocks(page)[0]
    assert snippet in _yaml_blocks(readme)
    assert "repo: local" in snippet
    for text in (page, readme, (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")):
        assert not re.search(r"rev:\s*v\d", text)
    (tmp_path / ".pre-commit-config.yaml").write_text(snippet)
    (tmp_path / "model.py").write_text(LEGACY)
    git("init", "-q", cwd=tmp_path)
    git("add", "-A", cwd=tmp_path)
    # `language: system`: the gradlint of the environment the tests run in.
    bindir = str(Path(sys.executable).parent)
    home = tmp_path_factory.mktemp("pre-commit-home-local")
    first = pre_commit("gradlint-fix", tmp_path, home, path=bindir)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "Found 1 problem (1 fixed, 0 remaining)." in first.stdout
    assert (tmp_path / "model.py").read_text() == LEGACY_FIXED
    second = pre_commit("gradlint-fix", tmp_path, home, path=bindir)
    assert second.returncode == 0, second.stdout + second.stderr
