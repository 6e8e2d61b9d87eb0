"""The formats that show fixes (``full``, ``json``, ``sarif``) print exactly the
stored outputs on the fixtures, the rules' cases and the shared samples.

Fix rendering (the edits in JSON and SARIF, ``full``'s previews) has fast paths
that stand in for LibCST's codemods; these outputs were recorded with the
codemods doing all the work, so any byte a fast path changes fails here.

After an intended change of output, regenerate them with

    .venv/bin/python tests/test_output_golden.py

and review the diff of ``tests/data/outputs/``.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXPECTED = HERE / "data" / "outputs"
FORMATS = ("full", "json", "sarif")
# Stands for the temporary directory the files are checked in (SARIF names it).
PLACEHOLDER = "<ROOT>"

sys.path.insert(0, str(HERE))
import samples  # noqa: E402


def build_tree(into: Path) -> None:
    """The files checked: fixtures/, the rules' cases and the samples, at stable relative paths."""
    # As fixtures/pyproject.toml has it: the expected outputs beside the fixtures are not checked.
    skip = ("*.fixed.py", "*.unsafe.py", "*.migrated.py")
    shutil.copytree(ROOT / "fixtures", into / "fixtures", ignore=shutil.ignore_patterns("*.md", "*.toml", "*.txt", "*.json", *skip))
    shutil.copytree(HERE / "cases", into / "cases", ignore=shutil.ignore_patterns("*.txt", "*.md", *skip))
    (into / "samples").mkdir()
    (into / "samples" / "legacy.py").write_text(samples.LEGACY)
    (into / "samples" / "lifted.py").write_text(samples.LIFTED)


def output(fmt: str, tree: Path) -> str:
    done = subprocess.run(
        # --preview: GL101's and GL301's fixes (wrapping, decorators) are the renderer's hardest
        [sys.executable, "-m", "gradlint", "check", "--no-cache", "--exit-zero", "--jobs", "1", "--preview", "--output-format", fmt, "fixtures", "cases", "samples"],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("GRADLINT") and k != "FORCE_COLOR"}, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.replace(tree.resolve().as_uri(), "file://" + PLACEHOLDER).replace(str(tree.resolve()), PLACEHOLDER)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("golden")
    build_tree(path)
    return path


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_is_byte_identical_to_the_stored_one(tree, fmt):
    expected = (EXPECTED / f"{fmt}.txt").read_text(encoding="utf-8")
    got = output(fmt, tree)
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "expected", "got", n=2))
        pytest.fail(f"--output-format {fmt} changed:\n{diff[:6000]}")


def test_stored_outputs_show_fix_edits():
    # Each stored output holds edits that add and remove imports (the codemods' work),
    # so that the comparison covers them and not only edits within one statement.
    json_out = (EXPECTED / "json.txt").read_text(encoding="utf-8")
    assert '"content": "import torch\\n' in json_out or '"content": "\\nimport torch' in json_out
    assert json_out.count('"edits": [') > 100
    assert "from torch.autograd import Variable" in (EXPECTED / "full.txt").read_text(encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    EXPECTED.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        build_tree(Path(tmp))
        for fmt in FORMATS:
            (EXPECTED / f"{fmt}.txt").write_text(output(fmt, Path(tmp)), encoding="utf-8")
            print(f"wrote {EXPECTED / fmt}.txt")
