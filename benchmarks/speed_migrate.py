#!/usr/bin/env python3
"""``gradlint migrate`` on legacy (PyTorch 0.3-era) code: wall and CPU time.

    .venv/bin/python benchmarks/speed_migrate.py [--python PATH] [--repeat N] [--copies N]

Figures, medians over ``--repeat`` runs of ``PATH -m gradlint migrate DIR``
(default jobs, files written), each on a fresh copy of its input:

- ``migrate fixtures wall s`` / ``migrate fixtures CPU s``: the legacy fixtures
  (``fixtures/GL001``-``GL005`` and ``fixtures/migrate``, sources and expected
  outputs), ``--copies`` times over (default 3: about 140 files);
- ``migrate legacy corpus wall s`` / ``migrate legacy corpus CPU s``: the
  2017-18 corpus ``benchmarks/run.py`` builds in ``benchmarks/.work/legacy``
  (272 files); skipped, with the reason printed, when it is absent.

Target: migrate runs on check's parallel workers, so on a machine with free
CPUs its wall time is well under its CPU time (one process: wall >= CPU);
the CPU time itself is the rewrites' (no target here). CPU time is user +
system of the run and its worker processes; on a shared machine wall time
mostly measures the others' load. Bytecode is written to a temporary
``PYTHONPYCACHEPREFIX`` by an unmeasured first run. Standard library only;
the last line printed is the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
LEGACY_FIXTURES = ("GL001", "GL002", "GL003", "GL004", "GL005", "migrate")
LEGACY_CORPUS = ROOT / "benchmarks" / ".work" / "legacy"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _fixtures(target: Path, copies: int) -> Path:
    for n in range(copies):
        for name in LEGACY_FIXTURES:
            shutil.copytree(ROOT / "fixtures" / name, target / f"copy{n}" / name)
    return target


def _corpus(target: Path) -> Path:
    shutil.copytree(LEGACY_CORPUS, target)
    return target


def _migrate(python: str, tree: Path, env: Dict[str, str]) -> Tuple[float, float]:
    """(CPU s, wall s) of one ``gradlint migrate`` of ``tree``, which it rewrites."""
    cpu, wall = _cpu(), time.perf_counter()
    proc = subprocess.run(
        [python, "-m", "gradlint", "migrate", tree.name], cwd=tree.parent, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gradlint migrate {tree} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return _cpu() - cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose installed gradlint is measured")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs of each input (default 3)")
    parser.add_argument("--copies", type=int, default=3, help="copies of the legacy fixtures (default 3)")
    args = parser.parse_args()

    inputs = {"fixtures": lambda target: _fixtures(target, args.copies)}
    if LEGACY_CORPUS.is_dir():
        inputs["legacy corpus"] = _corpus
    else:
        print(f"legacy corpus: skipped: {LEGACY_CORPUS} is absent (benchmarks/run.py builds it)")
    figures: Dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="gradlint-migrate-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_") and k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        warm = Path(tmp) / "warm"
        (warm / "a.py").parent.mkdir()
        (warm / "a.py").write_text("from torch.autograd import Variable\nx = Variable(y)\n", encoding="utf-8")
        _migrate(args.python, warm, env)  # bytecode, the disk
        for label, build in inputs.items():
            cpu: List[float] = []
            wall: List[float] = []
            for rep in range(args.repeat):
                tree = build(Path(tmp) / f"{label.replace(' ', '-')}-{rep}" / "tree")
                n = sum(1 for _ in tree.rglob("*.py"))
                c, w = _migrate(args.python, tree, env)
                shutil.rmtree(tree.parent)
                cpu.append(c)
                wall.append(w)
                print(f"  [{rep + 1}/{args.repeat}] {label} ({n} files): {c:.2f} s CPU, {w:.2f} s wall", flush=True)
            figures[f"migrate {label} wall s"] = round(statistics.median(wall), 2)
            figures[f"migrate {label} CPU s"] = round(statistics.median(cpu), 2)
            print(f"migrate {label}: {figures[f'migrate {label} CPU s']:.2f} s CPU, {figures[f'migrate {label} wall s']:.2f} s wall "
                  f"(medians of {args.repeat}; {os.cpu_count()} CPUs)")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
