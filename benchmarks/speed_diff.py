#!/usr/bin/env python3
"""``gradlint check --diff`` on a generated 20,000-line legacy file.

    .venv/bin/python benchmarks/speed_diff.py --python .venv/bin/python --repeat 3

Target: <= 10 s wall for the whole run (``gradlint check --no-cache --diff``),
with a hunk per separate edit; the peak memory of the process is reported
(no target). The file is the GL001-GL003 fixtures (``fixtures/GL00[123]/*.py``,
their inputs) repeated to 20,000 lines: 0.3-era code with every kind of fix
those rules make, imports spread through the file as in a file made of many.

Figures are medians over ``--repeat`` runs, each a fresh process of the
interpreter given with ``--python`` (the gradlint installed for it is the
one measured); peak memory is the child's maximum resident set size. A run
past ``--limit`` seconds is stopped and counted at the limit (a lower bound).
The last line printed is a JSON object of the figures. Standard library only;
Linux (or another system with ``os.wait4``) is assumed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
LINES = 20_000


def legacy_file(lines: int = LINES) -> str:
    """The GL001-GL003 fixture inputs, repeated and cut at ``lines`` lines."""
    parts = [
        p.read_text(encoding="utf-8")
        for p in sorted(ROOT.glob("fixtures/GL00[123]/*.py"))
        if not p.name.endswith((".fixed.py", ".unsafe.py"))
    ]
    text = "".join(parts)
    out = text * (lines // text.count("\n") + 1)
    return "".join(out.splitlines(keepends=True)[:lines])


def run_once(python: str, path: Path, limit: float) -> Tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, stdout) of one ``--diff`` run; wall is ``limit`` if stopped."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [python, "-m", "gradlint", "check", "--no-cache", "--diff", path.name],
        cwd=path.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    chunks: List[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    timer = threading.Timer(limit, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    # wait4, not wait(): the child's own CPU time and peak memory come with its exit.
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    timer.cancel()
    proc.returncode = 0  # reaped here; Popen must not wait for it again
    reader.join()
    stdout = b"".join(chunks).decode("utf-8", "replace")
    return min(wall, limit), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose gradlint is measured")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=600.0, help="seconds before a run is stopped")
    parser.add_argument("--lines", type=int, default=LINES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    walls, cpus, peaks, hunks = [], [], [], 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "legacy.py")
        path.write_text(legacy_file(args.lines), encoding="utf-8")
        for i in range(args.repeat):
            wall, cpu, peak, stdout = run_once(args.python, path, args.limit)
            hunks = sum(1 for line in stdout.splitlines() if line.startswith("@@"))
            stopped = " (stopped at the limit)" if wall >= args.limit else ""
            print(f"run {i + 1}: wall {wall:.2f} s{stopped}, CPU {cpu:.2f} s, peak {peak:.0f} MB, {hunks} hunks", flush=True)
            walls.append(wall)
            cpus.append(cpu)
            peaks.append(peak)
    n = f"{args.lines // 1000}k"
    figures = {
        f"diff {n} lines wall s": round(statistics.median(walls), 3),
        f"diff {n} lines cpu s": round(statistics.median(cpus), 3),
        f"diff {n} lines peak MB": round(max(peaks), 1),
        f"diff {n} lines hunks": hunks,
    }
    print(f"--diff on {args.lines:,} lines: median wall {figures[f'diff {n} lines wall s']:.2f} s (target <= 10 s)")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
