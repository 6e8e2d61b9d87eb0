#!/usr/bin/env python3
"""What each ``--output-format`` costs against ``concise``, in CPU time.

    python benchmarks/speed_formats.py --python .venv/bin/python --repeat 3

Targets, each format's CPU time over ``concise``'s:
- parallel workers (default jobs) on the 2017-18 corpus: target: <= 1.2
- ``--jobs 1`` on one code base (fastai 0.7.0): target: <= 1.2

The 2017-18 corpus is the PyTorch 0.3-era code bases of ``benchmarks/.work/corpus``
(built by ``benchmarks/run.py``) but allennlp 0.5.0, whose 464 files would double
the time for no other kind of code. Without that corpus both figures are
skipped, with the reason printed. The files are copied to a temporary directory
first (inside the repository they would be ignored: .gitignore lists
benchmarks/.work).

Each run is ``PYTHON -m gradlint check --no-cache --exit-zero --output-format F``;
its CPU time is user + system of the process and its workers. The formats
alternate within each repetition and the order rotates between repetitions, so
that a change in the machine's load falls on all of them; medians of ``--repeat``
runs, after one untimed run (which compiles the modules imported). The last
line is the figures as one JSON object (speed script interface:
benchmarks/README.md).

Only the standard library is used.
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
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
CORPUS = HERE / ".work" / "corpus"
FORMATS = ("concise", "full", "json", "sarif", "github")
TARGET = 1.2
# The 2017-18 code bases of benchmarks/run.py's corpus (its ERA "legacy"), but allennlp 0.5.0.
LEGACY = (
    "pretrainedmodels-0.7.4",
    "fastai-0.7.0",
    "pyro-ppl-0.1.2",
    "pytorch-ignite-0.1.0",
    "skorch-0.2.0",
    "torchtext-0.2.3",
    "torchvision-0.2.1",
    "tensorboardX-1.2",
    "pytorch-nlp-0.3.5",
)
ONE = "fastai-0.7.0"


def cpu_run(cmd: Sequence[str], cwd: Path) -> Optional[float]:
    """CPU seconds of ``cmd`` and its children; None if it failed."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRADLINT_CACHE_DIR", "PYTHONPATH")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(list(cmd), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        print(f"    failed (exit {done.returncode}): {done.stderr.strip()[-300:]}", flush=True)
        return None
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def format_cpu(python: str, target: Path, jobs: Optional[int], repeat: int, label: str) -> Dict[str, Optional[float]]:
    """format -> median CPU seconds of checking ``target`` (None: that format failed)."""
    runs: Dict[str, List[float]] = {f: [] for f in FORMATS}
    failed = set()
    # Untimed: the first run of an interpreter compiles the modules it imports (to
    # benchmarks/.work/pycache when benchmarks/run.py runs this), which no later run pays.
    cpu_run([python, "-m", "gradlint", "check", "--no-cache", "--exit-zero", "--jobs", "1", target.name], target.parent)
    for rep in range(repeat):
        order = list(FORMATS[rep % len(FORMATS) :] + FORMATS[: rep % len(FORMATS)])
        for fmt in order:
            if fmt in failed:
                continue
            cmd = [python, "-m", "gradlint", "check", "--no-cache", "--exit-zero", "--output-format", fmt, target.name]
            if jobs is not None:
                cmd[5:5] = ["--jobs", str(jobs)]
            start = time.perf_counter()
            cpu = cpu_run(cmd, target.parent)
            if cpu is None:
                failed.add(fmt)
                continue
            runs[fmt].append(cpu)
            print(f"  [{rep + 1}/{repeat}] {label} {fmt}: {cpu:.2f} s CPU, {time.perf_counter() - start:.2f} s wall", flush=True)
    return {f: statistics.median(v) if v and f not in failed else None for f, v in runs.items()}


def figures_of(times: Dict[str, Optional[float]], label: str) -> Dict[str, Optional[float]]:
    out: Dict[str, Optional[float]] = {f"{label} concise CPU s": times["concise"]}
    base = times["concise"]
    for fmt in FORMATS[1:]:
        t = times[fmt]
        out[f"{label} {fmt} / concise CPU"] = None if t is None or not base else round(t / base, 3)
    return out


def interpreter(python: str) -> str:
    """``python`` as the runs below can name it: they start in a temporary directory,
    where a relative path (``.venv/bin/python``) would name nothing. Not resolved
    further: a virtualenv's interpreter is a link, and its target is not the venv's."""
    return str(Path(python).absolute()) if os.sep in python else python


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose installed gradlint is measured")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    figures: Dict[str, Optional[float]] = {}
    missing = [name for name in LEGACY if not (CORPUS / name / ".complete").exists()]
    if missing:
        print(f"skipped: the 2017-18 corpus is not built ({', '.join(missing)} missing under {CORPUS}; benchmarks/run.py builds it)")
    else:
        with tempfile.TemporaryDirectory(prefix="gradlint-formats-") as tmp:
            corpus = Path(tmp, "corpus")
            for name in LEGACY:
                shutil.copytree(CORPUS / name, corpus / name)
            one = Path(tmp, "one")
            shutil.copytree(CORPUS / ONE, one / ONE)
            files = sum(1 for _ in corpus.rglob("*.py"))
            print(f"2017-18 corpus: {len(LEGACY)} code bases, {files} files; --jobs 1 on {ONE}; {args.repeat} repetitions", flush=True)
            python = interpreter(args.python)
            parallel = format_cpu(python, corpus, None, args.repeat, "parallel")
            serial = format_cpu(python, one / ONE, 1, args.repeat, "jobs 1")
        figures.update(figures_of(parallel, "formats parallel"))
        figures.update(figures_of(serial, "formats jobs 1"))
        ratios = [v for k, v in figures.items() if k.endswith("/ concise CPU") and v is not None]
        if ratios:
            figures["formats worst / concise CPU"] = max(ratios)
            print(f"worst format / concise: {max(ratios):.3f} (target <= {TARGET})")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
