"""Time the test suite as the README runs it: the quick selection, and with --full the whole suite.

Usage, from the repository root: ``.venv/bin/python benchmarks/suite_time.py [--full]``.

The commands are read from the README's Test section (the last command of its
first block, and its second block), so what is timed is what developers are
told to run. For each it prints the wall time, the CPU time (user + system of
pytest and every process it started), the load average before and after, the
15 slowest test phases pytest reports, and the ratios to the targets: the
quick selection in 1 minute, the whole suite in 6 minutes on an idle 2-core
machine. On a loaded machine the wall time measures the other processes too;
CPU time / cores is then the better guide to the idle wall time (a lower
bound: it assumes the work spreads evenly over the cores).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"quick selection": 60.0, "whole suite": 360.0}


def readme_commands() -> dict:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("\n## Test\n") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    full = blocks[0].strip().split(" && ")[-1]
    return {"quick selection": blocks[1].strip(), "whole suite": full}


def run(name: str, command: str) -> None:
    args = shlex.split(command)
    assert args[0].endswith("python"), command
    # The shell would expand the README's patterns (tests/test_rules_*.py); no shell here.
    args = [a for arg in args[1:] for a in (sorted(glob.glob(arg, root_dir=ROOT)) if "*" in arg else [arg])]
    args = [sys.executable, *args, "-q", "-p", "no:cacheprovider", "--durations=15"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cores = os.cpu_count() or 1
    lines = proc.stdout.splitlines()
    summary = next((line for line in reversed(lines) if re.search(r"\d+ (passed|failed)", line)), "(no summary)")
    slowest = [line for line in lines if re.match(r"\d+\.\d+s (call|setup|teardown) ", line)]
    target = TARGETS[name]
    print(f"== {name}: {command}")
    print(f"   {summary.strip('= ')}")
    print(f"   wall {wall:7.1f} s   CPU {cpu:7.1f} s   CPU/{cores} cores {cpu / cores:7.1f} s   load {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    print(f"   target {target:.0f} s: wall/target {wall / target:.2f}, (CPU/cores)/target {cpu / cores / target:.2f}")
    print("   slowest phases:")
    for line in slowest[:15]:
        print(f"     {line}")
    if proc.returncode not in (0, 1):
        print(proc.stdout[-2000:], proc.stderr[-2000:], sep="\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also time the whole suite (minutes)")
    options = parser.parse_args()
    commands = readme_commands()
    run("quick selection", commands["quick selection"])
    if options.full:
        run("whole suite", commands["whole suite"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
