"""A run imports only the rules the prefilter lets through, and finds what a run with every rule imported finds.

``engine.triggered_rules`` asks the prefilter's table (``gradlint/triggers.py``)
which rules may fire on a file and imports those alone (``rules.rule_classes``):
a rule module and what it imports cost more CPU than checking a small file.
Here every fixture directory is checked by the command line in a fresh process
(the lazy path: nothing imported but what its files need) and in this process,
where every rule was imported first (the eager path), with every rule and the
preview tier, with the project's own selection, and with the noqa directive
codes: the findings, their fixes and the output must be the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from click.testing import CliRunner

from harness import FIXTURES
from gradlint import catalog
from gradlint.cli import main
from gradlint.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cases"
DIRS = sorted({p.parent for base in (FIXTURES, CASES) for p in base.rglob("*.py")})


def _targets(directory: Path) -> List[str]:
    """The directory, or its own files where a directory below it is checked too (a walk
    of ``tests/cases`` would check every case a second time)."""
    if any(d != directory and directory in d.parents for d in DIRS):
        return [str(p.relative_to(ROOT)) for p in sorted(directory.glob("*.py"))]
    return [str(directory.relative_to(ROOT))]
VARIANTS: List[List[str]] = [
    ["--select", "ALL", "--preview"],
    [],
    ["--extend-select", ",".join(sorted(catalog.DIRECTIVE_CODES))],
]

# Runs the variants in order in one process and prints each one's exit status and output.
DRIVER = """
import json, sys
from click.testing import CliRunner
from gradlint.cli import main
variants, targets = json.loads(sys.argv[1]), sys.argv[2:]
out = []
for args in variants:
    r = CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", "--output-format", "json", *args, *targets])
    out.append([r.exit_code, r.stdout])
print(json.dumps([out, sorted(m for m in sys.modules if m.startswith("gradlint.rules.gl"))]))
"""


def _env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_")}
    env["NO_COLOR"] = "1"
    return env


@pytest.mark.parametrize("directory", DIRS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_lazy_path_finds_what_every_rule_imported_finds(directory):
    targets = _targets(directory)
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(VARIANTS), *targets],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    lazy, imported = json.loads(proc.stdout)
    all_rules()  # the eager path: every rule module imported before the run
    for args, (status, output) in zip(VARIANTS, lazy):
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            eager = CliRunner(env=_env()).invoke(main, ["check", "--no-cache", "--jobs", "1", "--output-format", "json", *args, *targets])
        finally:
            os.chdir(cwd)
        assert (status, json.loads(output)) == (eager.exit_code, json.loads(eager.stdout)), args
    # the fresh process imported the rule modules of the codes found in its files at least,
    # and not every rule module
    found = {f["code"] for status, output in lazy for f in json.loads(output)}
    assert {c for c in found if c in all_rules()} <= {_code(m) for m in imported}
    assert len(imported) < len(all_rules())


def _code(module: str) -> str:
    return module.rsplit(".", 1)[1].split("_", 1)[0].upper()


def test_a_small_file_with_one_finding_imports_only_the_rules_it_may_fire():
    """The 6-line file of ``benchmarks/speed_startup.py``: ``Variable`` and ``volatile``
    are GL001's and GL002's triggers, and no other rule's."""
    source = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2), volatile=True)\nprint(x)\n"
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith('gradlint.rules.gl')), file=sys.stderr))\n"
        "sys.argv = ['gradlint', 'check', '--no-cache', '--output-format', 'concise', '-'];"
        "from gradlint.cli import main; main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], input=source, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("-:4:5: GL001 ")
    assert proc.stderr == "['gradlint.rules.gl001_volatile_flag', 'gradlint.rules.gl002_variable_wrapper']\n"
