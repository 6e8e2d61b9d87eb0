"""The test suite's own set-up: collection stays torch-free, and the README's
command runs the files in worker processes, longest first."""

from __future__ import annotations

import importlib.util
import shlex
import subprocess
import sys
from types import SimpleNamespace

from harness import ROOT

TESTS = ROOT / "tests"


def _load_conftest():
    # By its path: in a session that has run pytester suites, the module named
    # `conftest` may be one of theirs.
    spec = importlib.util.spec_from_file_location("suite_conftest", TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conftest = _load_conftest()

# Imports every test module as collection does (the tests' own directories on the
# path), then says which torch modules are loaded.
IMPORT_ALL = """
import importlib.util, sys
from pathlib import Path
tests = Path(sys.argv[1])
sys.path[:0] = [str(tests), str(tests / "semantic")]
for n, path in enumerate(sorted([*tests.glob("test_*.py"), *tests.glob("semantic/test_*.py")])):
    spec = importlib.util.spec_from_file_location(f"collected_{n}_{path.stem}", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    if "torch" in sys.modules:
        sys.exit(f"{path.relative_to(tests)} imports torch")
"""


def test_collecting_the_suite_does_not_import_torch():
    # Importing torch is seconds of CPU, paid by every run and every xdist worker,
    # including runs that select no test needing it: tests import it when they run.
    proc = subprocess.run([sys.executable, "-c", IMPORT_ALL, str(TESTS)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def _item(name: str) -> SimpleNamespace:
    return SimpleNamespace(path=TESTS / name, name=name)


def test_xdist_workers_start_the_longest_files_first_and_a_serial_run_keeps_its_order():
    names = ["test_cases.py", "test_oracle.py", "test_cli.py", "test_verify.py", "test_engine.py"]
    items = [_item(n) for n in names]
    conftest.pytest_collection_modifyitems(SimpleNamespace(workerinput={}), items)
    listed = [n for n in conftest.LONGEST_FIRST if n in names]
    assert listed == ["test_oracle.py", "test_verify.py"]
    assert [i.name for i in items] == [*listed, "test_cases.py", "test_cli.py", "test_engine.py"]
    items = [_item(n) for n in names]
    conftest.pytest_collection_modifyitems(SimpleNamespace(), items)
    assert [i.name for i in items] == names


def test_xdist_keeps_the_longest_first_order_rather_than_most_tests_first():
    config = SimpleNamespace(option=SimpleNamespace(loadscopereorder=True))
    conftest.pytest_configure(config)
    assert config.option.loadscopereorder is False
    plain = SimpleNamespace(option=SimpleNamespace())  # without xdist: nothing to set
    conftest.pytest_configure(plain)
    assert vars(plain.option) == {}


def test_the_longest_files_named_exist():
    # conftest matches an item by its file's name: tests/ and tests/semantic/ hold test files.
    missing = [name for name in conftest.LONGEST_FIRST if not any((d / name).is_file() for d in (TESTS, TESTS / "semantic"))]
    assert not missing, f"conftest.LONGEST_FIRST names files the suite no longer has: {missing}"


def test_the_readme_and_ci_run_the_files_whole_in_worker_processes():
    # `--dist loadfile` keeps a file's tests on one worker: the module-scoped runs
    # (verify over every fixture, the oracle's sample) are then built once, not once per worker.
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if " -m pytest" in line]
    assert len(ci) == 1
    assert shlex.split(ci[0])[3:] == ["-n", "auto", "--dist", "loadfile"]
    from gradlint.config import tomllib

    dev = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["dev"]
    assert any(req.startswith("pytest-xdist") for req in dev)
