#!/usr/bin/env python3
"""What output costs: each ``--output-format`` against ``concise``, the editor
server's answers, and ``--diff`` on a long file; this tree, and another revision.

    .venv/bin/python benchmarks/output_formats.py                  # this tree
    .venv/bin/python benchmarks/output_formats.py --baseline HEAD~3 # and that revision, alternating

Offline: the corpus is ``fixtures/`` (every ``.py``), copied ``--copies`` times
into a temporary directory. Each format runs ``gradlint check --no-cache
--exit-zero`` on it with ``--jobs 1`` and with default jobs; the trees and the
formats alternate within each repetition, medians of CPU time (user + system,
worker processes included) are reported, as ratios to ``concise`` of the same
tree. The server figures are CPU seconds measured in one process for each tree
(``gradlint.server``'s own functions, no transport): a check of a 500-line
legacy module (what a ``didChange`` waits for, less the debounce), a code
action on each finding (the slowest and the median), "fix all", and the same on
the module with ``async=`` arguments. ``--diff`` runs on a file of 20,000 lines
made of the GL001–GL003 fixtures, with a time limit; its hunks are counted.
With ``--write``, the figures replace the marked section of docs/benchmarks.md.

The baseline is ``git archive REV gradlint`` unpacked in a temporary
directory and put first on ``PYTHONPATH``: the same interpreter and
dependencies. Only the standard library is used here; Linux is assumed.
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
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs" / "benchmarks.md"
FORMATS = ("concise", "full", "json", "sarif", "github")
FORMATS_TARGET = 1.2
MARKER = "<!-- output cost, editor server and --diff: benchmarks/output_formats.py -->"

sys.path.insert(0, str(HERE))
from run import legacy_document  # noqa: E402  (the same 0.3-era module run.py's server figures use)


def long_file(lines: int) -> str:
    parts = [
        p.read_text(encoding="utf-8")
        for p in sorted(ROOT.glob("fixtures/GL00[123]/*.py"))
        if not p.name.endswith((".fixed.py", ".unsafe.py"))
    ]
    text = "".join(parts)
    n = text.count("\n")
    out = text * (lines // n + 1)
    return "".join(out.splitlines(keepends=True)[:lines])


def build_corpus(target: Path, copies: int) -> Tuple[int, int]:
    files = [p for p in ROOT.glob("fixtures/**/*.py")]
    lines = 0
    for k in range(copies):
        for p in files:
            dest = target / f"copy{k}" / p.relative_to(ROOT / "fixtures")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
            lines += p.read_text(encoding="utf-8").count("\n")
    return len(files) * copies, lines


def baseline_tree(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev, "gradlint"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(data)) as tar:
        tar.extractall(into)
    return into


def env_for(tree: Optional[Path]) -> Dict[str, str]:
    env = dict(os.environ)
    env.pop("GRADLINT_CACHE_DIR", None)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def cpu_of(cmd: Sequence[str], cwd: Path, env: Dict[str, str], timeout: Optional[float] = None) -> Tuple[float, float, str]:
    """(CPU seconds of the command and its children, wall seconds, stdout); CPU is inf past ``timeout``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf"), time.perf_counter() - start, ""
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def format_times(trees: Dict[str, Optional[Path]], corpus: Path, repeat: int, jobs: Optional[int]) -> Dict[str, Dict[str, float]]:
    """tree -> format -> median CPU seconds."""
    runs: Dict[str, Dict[str, List[float]]] = {t: {f: [] for f in FORMATS} for t in trees}
    order = [(t, f) for f in FORMATS for t in trees]
    for rep in range(repeat):
        for name, fmt in order[rep % len(order) :] + order[: rep % len(order)]:
            cmd = [sys.executable, "-m", "gradlint", "check", "--no-cache", "--exit-zero", "--output-format", fmt, corpus.name]
            if jobs is not None:
                cmd[4:4] = ["--jobs", str(jobs)]
            cpu, wall, _ = cpu_of(cmd, corpus.parent, env_for(trees[name]))
            runs[name][fmt].append(cpu)
            print(f"  [{rep + 1}/{repeat}] {name} {fmt} jobs={jobs or 'default'}: {cpu:.2f} s CPU, {wall:.2f} s wall", flush=True)
    return {t: {f: statistics.median(v) for f, v in fmts.items()} for t, fmts in runs.items()}


def server_figures(lines: int = 500) -> Dict[str, Dict[str, float]]:
    """In this process: CPU seconds of the server's work on a legacy module (plain and with async=)."""
    from lsprotocol import types
    from pygls.workspace.position_codec import PositionCodec

    from gradlint import server
    from gradlint.rules import all_rules

    all_rules()
    out: Dict[str, Dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, async_args in (("plain", False), ("async=", True)):
            path = Path(tmp, f"doc_{label.strip('=')}.py")
            text = legacy_document(lines, async_args)
            path.write_text(text)
            server.check_text(text, path)  # warm: imports, catalog
            checks = []
            for _ in range(3):
                t = time.process_time()
                checked = server.check_text(text, path)
                checks.append(time.process_time() - t)
            version = server.Version(text, path, PositionCodec(types.PositionEncodingKind.Utf16), checked)
            actions = []
            for diag in version.lsp:
                t = time.process_time()
                version.actions("file:///doc.py", diag.range, resolve=True)
                actions.append(time.process_time() - t)
            t = time.process_time()
            version.fix_all()
            fix_all = time.process_time() - t
            out[label] = {
                "lines": text.count("\n"),
                "findings": len(version.lsp),
                "check": statistics.median(checks),
                "action_max": max(actions, default=0.0),
                "action_median": statistics.median(actions) if actions else 0.0,
                "action_first": actions[0] if actions else 0.0,
                "fix_all": fix_all,
            }
    return out


def server_in(tree: Optional[Path]) -> Dict[str, Dict[str, float]]:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--server-json"], env=env_for(tree), capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def diff_figures(tree: Optional[Path], lines: int, limit: float) -> Tuple[float, float, int, int]:
    """(CPU s, wall s, hunks, lines of output) of `gradlint check --diff` on a long file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "long.py")
        path.write_text(long_file(lines))
        cpu, wall, stdout = cpu_of(
            [sys.executable, "-m", "gradlint", "check", "--no-cache", "--diff", path.name], Path(tmp), env_for(tree), timeout=limit
        )
    return cpu, wall, sum(1 for line in stdout.splitlines() if line.startswith("@@")), stdout.count("\n")


def render(args, trees, corpus_stats, formats, server, diff) -> str:
    out = [MARKER, "", "## Output formats, the editor server and `--diff`", ""]
    out.append(
        f"`benchmarks/output_formats.py` on {os.cpu_count()} logical CPUs; load average before: "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}. Trees: {', '.join(trees)}. Medians of {args.repeat} runs."
    )
    out += [
        "",
        f"### Output formats (fixtures/ copied {args.copies}×: {corpus_stats[0]:,} files, {corpus_stats[1]:,} lines)",
        "",
        "CPU seconds (user + system, workers included) of `gradlint check --no-cache --exit-zero --output-format F`; "
        f"ratio to `concise` of the same tree and jobs; target ≤ {FORMATS_TARGET}×.",
        "",
        "| tree | jobs | " + " | ".join(FORMATS) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in FORMATS) + " |",
    ]
    for jobs, by_tree in formats.items():
        for tree, times in by_tree.items():
            base = times["concise"]
            cells = [f"{times[f]:.2f} s" + ("" if f == "concise" else f" ({times[f] / base:.2f}×)") for f in FORMATS]
            out.append(f"| {tree} | {jobs} | " + " | ".join(cells) + " |")
    out += [
        "",
        "### Editor server (500-line legacy module)",
        "",
        "CPU seconds in one process: *check* is what a `didChange` waits for after its debounce (the check, diagnostics "
        "built); *code action*: `Version.actions` on each finding's range for a client that resolves edits (its quick "
        "fixes rendered from the check already done); *fix all*: the edits of every safe fix.",
        "",
        "| tree | module | findings | check | code action: first | median | slowest | fix all |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for tree, by_doc in server.items():
        for label, f in by_doc.items():
            out.append(
                f"| {tree} | {label} | {f['findings']:.0f} | {f['check']:.3f} s | {f['action_first']:.3f} s | "
                f"{f['action_median']:.3f} s | {f['action_max']:.3f} s | {f['fix_all']:.3f} s |"
            )
    out += [
        "",
        f"### `--diff` on a {args.diff_lines:,}-line file (GL001–GL003 fixtures repeated; limit {args.diff_limit:.0f} s)",
        "",
        "| tree | CPU | wall | hunks | output lines |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for tree, (cpu, wall, hunks, n) in diff.items():
        shown = f"over {args.diff_limit:.0f} s" if cpu == float("inf") else f"{cpu:.2f} s"
        out.append(f"| {tree} | {shown} | {wall:.2f} s | {hunks} | {n} |")
    return "\n".join(out) + "\n"


def write_section(text: str) -> None:
    """Replace this script's marked section of docs/benchmarks.md, as run.py replaces its own."""
    sys.path.insert(0, str(HERE))
    import run

    assert run.OUTPUT_SECTION == MARKER
    run._write_section(text, MARKER)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="REV", help="also run revision REV of this repository, alternating")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--copies", type=int, default=3, help="copies of fixtures/ in the corpus")
    parser.add_argument("--diff-lines", type=int, default=20_000)
    parser.add_argument("--diff-limit", type=float, default=300.0, help="seconds before a --diff run is stopped")
    parser.add_argument("--skip", action="append", default=[], choices=["formats", "server", "diff"])
    parser.add_argument("--write", action="store_true", help="replace the marked section of docs/benchmarks.md")
    parser.add_argument("--server-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.server_json:
        print(json.dumps(server_figures()))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        trees: Dict[str, Optional[Path]] = {"this tree": None}
        if args.baseline:
            rev = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
            trees[rev] = baseline_tree(args.baseline, Path(tmp, "baseline"))
        corpus = Path(tmp, "corpus")
        stats = build_corpus(corpus, args.copies)
        formats: Dict[str, Dict[str, Dict[str, float]]] = {}
        if "formats" not in args.skip:
            for jobs in (1, None):
                formats["1" if jobs else "default"] = format_times(trees, corpus, args.repeat, jobs)
        server = {} if "server" in args.skip else {name: server_in(tree) for name, tree in trees.items()}
        diff = {} if "diff" in args.skip else {name: diff_figures(tree, args.diff_lines, args.diff_limit) for name, tree in trees.items()}
        text = render(args, trees, stats, formats, server, diff)
    print()
    print(text)
    if args.write:
        write_section(text)
        print(f"written to {DOCS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
