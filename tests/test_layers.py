"""The import layers of ``[tool.importlinter]`` in pyproject.toml hold."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept():
    pytest.importorskip("importlinter")
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe is not None, "import-linter is installed but lint-imports is not on the path"
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout
    assert run.stdout.count(" KEPT") == 5


def test_no_import_cycle_even_through_type_checking_imports(tmp_path):
    """The layers leave ``if TYPE_CHECKING:`` imports out (they name types only), but
    such an import may still not close a cycle: the two modules would then be one
    design split across two files."""
    pytest.importorskip("importlinter")
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    packages = sorted(f"gradlint.{p.parent.name}" for p in (ROOT / "gradlint").glob("*/__init__.py"))
    config = tmp_path / "importlinter.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_package = "gradlint"\n'
        "exclude_type_checking_imports = false\n"
        "[[tool.importlinter.contracts]]\n"
        'name = "acyclic with TYPE_CHECKING imports"\n'
        'type = "acyclic_siblings"\n'
        f"ancestors = {['gradlint', *packages]!r}\n".replace("'", '"'),
        encoding="utf-8",
    )
    run = subprocess.run([exe, "--no-cache", "--config", str(config)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 kept, 0 broken" in run.stdout


def test_every_module_of_the_package_has_a_layer():
    """A module left out of the package's layer contract would be free to import anything."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(
        c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers" and "gradlint.cli" in c["layers"]
    )
    layered = {name.strip() for layer in contract["layers"] for name in layer.split("|")}
    package = ROOT / "gradlint"
    modules = {f"gradlint.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    modules |= {f"gradlint.{p.parent.name}" for p in package.glob("*/__init__.py")}
    modules.discard("gradlint._catalog")  # the rule catalog's TOML files, where a build puts them: no code
    assert layered == modules


def test_rules_do_not_import_each_other():
    """What two rules share is a fact of the semantic model or a shape in a family
    helper (``gradlint/rules/_*.py``), never one rule's module imported by another."""
    import re

    found = []
    for path in sorted((ROOT / "gradlint" / "rules").glob("gl*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bgradlint\.rules\.gl\d{3}|from gradlint\.rules import gl\d{3}|from \.gl\d{3}", line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert found == []
