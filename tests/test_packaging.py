"""The wheel carries the catalog: a fresh virtualenv with only the wheel can explain a rule."""

from __future__ import annotations

import importlib.util
import os
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
    (wheel,) = dist.glob("gradlint-*.whl")
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
    assert "gradlint/verify/_harness.py" in names
    proc = subprocess.run([str(bindir / "gradlint"), "verify", "--probes"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "error: `gradlint verify` runs code under torch, which is not installed: pip install 'gradlint[verify]'\n"
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
