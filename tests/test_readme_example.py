"""The README is true: its first example's console output is what gradlint prints
for its code block and its fixed block what `--fix` writes; its install command
works on a fresh clone (tests/test_packaging.py, which reads the wheel it
builds); its test command is what CI runs, with PyTorch's CPU
index for a normal machine."""

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


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _sh_blocks(text: str) -> list:
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def _commands(block: str) -> list:
    return [c.strip() for line in block.splitlines() for c in line.split("&&") if c.strip() and not c.strip().startswith("#")]


INDEX_INSTALL = re.compile(r"pip install ['\"]?torch-gradlint(?!\s*@)")


def test_install_instructions_work_today():
    # The package is not on the index yet: the first install command is from the
    # clone, and each mention of the index name says it is for when it is published.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = _commands(_sh_blocks(_section(readme, "Install and run"))[0])
    assert first[:2] == ["python3 -m venv .venv", ".venv/bin/pip install ."]
    assert first[2].startswith(".venv/bin/gradlint check fixtures/") and (ROOT / first[2].split()[-1]).is_file()
    assert readme.index("## Install and run") < readme.index("pip install torch-gradlint")
    pages = [ROOT / "README.md", ROOT / "docs" / "getting-started.md", *sorted((ROOT / "docs" / "integrations").glob("*.md"))]
    premature = []
    for page in pages:
        for paragraph in re.split(r"\n\s*\n", page.read_text(encoding="utf-8")):
            if INDEX_INSTALL.search(paragraph) and "when published" not in paragraph.lower():
                premature.append(f"{page.relative_to(ROOT)}: {INDEX_INSTALL.search(paragraph).group(0)}")
    assert premature == []


def test_readme_test_command_is_what_ci_runs_with_the_cpu_torch_index():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    test = _commands(_sh_blocks(_section(readme, "Test"))[0])
    cpu = "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu "
    # A normal machine gets torch's CPU build (not gigabytes of CUDA libraries)...
    assert any(c.startswith(cpu + ".venv/bin/pip install -e '.[dev]'") for c in test)
    # ...and CI, which has only the package index and torch at hand, the same commands without it.
    ci = [
        line.replace(" --quiet", "")
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.startswith((".venv/", "python3 "))
    ]
    assert [c for c in ci if "--upgrade pip" not in c] == [c.replace(cpu, "") for c in test]
    # The quick selection the README offers names files that exist and a marker the suite has.
    quick = _commands(_sh_blocks(_section(readme, "Test"))[1])
    (command,) = quick
    args = shlex.split(command)
    assert args[:4] == [".venv/bin/python", "-m", "pytest", "-m"] and args[4] == "not slow"
    for pattern in args[5:]:
        assert list(ROOT.glob(pattern)), pattern
