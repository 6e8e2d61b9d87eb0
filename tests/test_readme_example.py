"""The README's first example is real: its console output is what gradlint prints
for its code block, and its fixed block is what `--fix` writes."""

from __future__ import annotations

import re
import shlex

from click.testing import CliRunner

from harness import ROOT
from gradlint.cli import main


def test_readme_example_prints_what_the_readme_says(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code, fixed = re.findall(r"```python\n(.*?)```", readme, re.S)[:2]
    console = re.search(r"```console\n(\$ gradlint check .*?)```", readme, re.S).group(1)
    assert code.startswith("# evaluate.py\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evaluate.py").write_text(code)
    transcript = []
    for command in re.findall(r"^\$ (.*)$", console, re.M):
        args = shlex.split(command)
        assert args[0] == "gradlint"
        result = CliRunner().invoke(main, [*args[1:2], "--no-cache", *args[2:]])
        transcript.append(f"$ {command}\n{result.stdout}")
    assert "".join(transcript) == console
    # The fixed block is the fixed file, but for its first line, a label.
    assert (tmp_path / "evaluate.py").read_text().split("\n", 1)[1] == fixed.split("\n", 1)[1]
