"""The wheel carries the catalog: a fresh virtualenv with only the wheel can explain a rule;
the README's install command, which builds that wheel, works on a fresh clone."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness import ROOT
from test_readme_example import _section, _sh_blocks


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory):
    """The README's install command, as it prints it, run in a copy of the tracked
    files (a clone: nothing built or installed here can help it): a fresh
    virtualenv, and `pip install .`, which builds the wheel and installs it with
    its dependencies. Both tests below read it: building a wheel and making a
    virtualenv with pip are most of what either costs, and the second time the
    same tree would give the same wheel."""
    tmp = tmp_path_factory.mktemp("fresh-clone")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = _sh_blocks(_section(readme, "Install and run"))[:1]
    clone = tmp / "gradlint"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, tracked.split("\0")):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "GRADLINT_OUTPUT_FORMAT")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT)))
    proc = subprocess.run(["bash", "-c", block.replace("python3 ", f"{sys.executable} ", 1)], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    return SimpleNamespace(clone=clone, venv=clone / ".venv", proc=proc)


@pytest.mark.slow
def test_readme_install_command_runs_on_a_fresh_clone(fresh_clone):
    proc = fresh_clone.proc
    # Exit 1: the example has findings, which it prints.
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ": GL001 [*] `volatile=True` has been ignored" in proc.stdout


@pytest.mark.slow
def test_wheel_installs_and_reads_catalog(fresh_clone, tmp_path):
    # The wheel `pip install .` built in the fresh clone, as installed: its
    # metadata, entry points and file list (RECORD) are the wheel's, copied as they are.
    env_dir = fresh_clone.venv
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    assert (bindir / "gradlint").is_file(), fresh_clone.proc.stderr[-2000:]
    (dist_info,) = {p.resolve() for p in env_dir.glob("lib*/python*/site-packages/torch_gradlint-*.dist-info")}  # lib64 may link to lib
    # A wheel, installed: not an editable install pointing at the clone.
    assert '"editable"' not in (dist_info / "direct_url.json").read_text()
    # pip's view of the wheel: the distribution's name on the index, and the
    # `gradlint` command and flake8 plugin it installs.
    metadata = (dist_info / "METADATA").read_text()
    entry_points = (dist_info / "entry_points.txt").read_text()
    assert "\nName: torch-gradlint\n" in metadata
    assert "Provides-Extra: verify\n" in metadata and "Provides-Extra: lsp\n" in metadata
    assert "[console_scripts]\ngradlint = gradlint.cli:run\n" in entry_points
    assert "[flake8.extension]\nGL = gradlint.flake8_plugin:Plugin\n" in entry_points
    # Run from elsewhere so that nothing can come from the checkout.
    proc = subprocess.run(
        [str(bindir / "gradlint"), "explain", "GL001"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert proc.stdout.startswith("# volatile-flag (GL001)\n")
    where = subprocess.run(
        [str(bindir / "python"), "-c", "import gradlint, sys; print(gradlint.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout
    assert str(env_dir) in where
    sample = tmp_path / "sample.py"
    sample.write_text("from torch.autograd import Variable\nv = Variable(x, volatile=True)\n")
    proc = subprocess.run([str(bindir / "gradlint"), "check", "-q", str(sample)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1 and ": GL001 " in proc.stdout

    # verify ships its sandbox harness, and without torch it says how to get it.
    names = {row.split(",")[0] for row in (dist_info / "RECORD").read_text().splitlines()}
    assert {"gradlint/verify/_harness.py", "gradlint/verify/_harness_values.py", "gradlint/verify/_harness_trace.py"} <= names
    proc = subprocess.run([str(bindir / "gradlint"), "verify", "--probes"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "error: `gradlint verify` runs code under torch, which is not installed: pip install torch numpy (in a clone of gradlint: pip install '.[verify]')\n"
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.submodule_search_locations:
        # With torch importable (here through PYTHONPATH, which the sandbox's
        # `python -I` ignores), the installed harness runs a probe.
        site = str(Path(list(spec.submodule_search_locations)[0]).parent)
        env = dict(os.environ, PYTHONPATH=site)
        proc = subprocess.run(
            [str(bindir / "gradlint"), "verify", "--probes", "--select", "GL003"],
            cwd=tmp_path, capture_output=True, text=True, env=env,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("GL003  CONFIRMED  ")


# What a reader would paste: `pip install gradlint`, `pip install 'gradlint[lsp]'`,
# `additional_dependencies: [gradlint]`. That name on the package index is an
# unrelated program, so none of these may appear in a tracked file.
_FOREIGN_INSTALL = re.compile(
    r"pip install (?:-U |--upgrade )?['\"]?gradlint(?:[^-_a-zA-Z0-9.]|$)"
    r"|['\"\s\[,]gradlint\[[a-z]+\]"
    r"|additional_dependencies:\s*\[[^\]]*(?<![-\w])gradlint(?![-\w])"
)


def test_no_file_tells_users_to_install_the_foreign_gradlint():
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    offenders = []
    for name in filter(None, tracked):
        path = ROOT / name
        if name == "tests/test_packaging.py":  # its own examples of what is forbidden
            continue
        if path.suffix not in {".md", ".py", ".toml", ".yaml", ".yml", ".txt", ".cfg", ".ini", ""} or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            if _FOREIGN_INSTALL.search(line):
                offenders.append(f"{name}:{lineno}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize(
    "line, flagged",
    [
        ("pip install gradlint", True),
        ("- run: pip install -U gradlint", True),
        ("pip install 'gradlint[lsp]'", True),
        ('pip install "gradlint[verify]"', True),
        ("additional_dependencies: [flake8-bugbear, gradlint]", True),
        ("pip install torch-gradlint", False),
        ("pip install 'torch-gradlint[lsp]'", False),
        ("additional_dependencies: [torch-gradlint]", False),
        ("pip install gradlint-extras", False),
    ],
)
def test_foreign_install_pattern(line, flagged):
    assert bool(_FOREIGN_INSTALL.search(line)) is flagged


def test_extras_that_run_verify_install_numpy():
    # Legacy scripts import numpy beside torch; without it `verify` dies at their first line.
    from gradlint.config import tomllib  # tomli before Python 3.11

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for extra in ("verify", "dev"):
        assert any(re.match(r"numpy\b", req) for req in extras[extra]), extra
        assert any(re.match(r"torch\b", req) for req in extras[extra]), extra
