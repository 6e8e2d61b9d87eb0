"""The wheel carries the catalog: a fresh virtualenv with only the wheel can explain a rule."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from harness import ROOT


@pytest.mark.slow
def test_wheel_installs_and_reads_catalog(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
    )
    (wheel,) = dist.glob("torch_gradlint-*.whl")
    # pip's view of the wheel: the distribution's name on the index, and the
    # `gradlint` command and flake8 plugin it installs.
    with zipfile.ZipFile(wheel) as zf:
        metadata = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "\nName: torch-gradlint\n" in metadata
    assert "Provides-Extra: verify\n" in metadata and "Provides-Extra: lsp\n" in metadata
    assert "[console_scripts]\ngradlint = gradlint.cli:main\n" in entry_points
    assert "[flake8.extension]\nGL = gradlint.flake8_plugin:Plugin\n" in entry_points
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True)
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
    names = zipfile.ZipFile(wheel).namelist()
    assert {"gradlint/verify/_harness.py", "gradlint/verify/_harness_values.py", "gradlint/verify/_harness_trace.py"} <= set(names)
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
