"""The test suite's own set-up: collecting it stays torch-free."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness import ROOT

TESTS = ROOT / "tests"

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
