#!/usr/bin/env python3
"""Precision of gradlint's default rules at first sight, batch by batch.

    .venv/bin/python benchmarks/judged/first-sight/score.py
        # per batch and per judged run: precision per rule and in total
    .venv/bin/python benchmarks/judged/first-sight/score.py --build DIR --mirrors MIRRORS
        # unpack each batch's code bases at their commits into DIR/<batch>/<name>
    .venv/bin/python benchmarks/judged/first-sight/score.py --rerun DIR [--batch batch-1]
        # run gradlint on DIR/<batch>/<name> and say which judged findings are
        # still reported, which are gone and which findings are new (unjudged)
    .venv/bin/python benchmarks/judged/first-sight/score.py --rerun DIR --batch batch-2 \
            --write-run findings --revision abc1234
        # and write the findings as a TSV to judge: judgements of the batch's
        # first-sight run carried over, the rest as stubs (verdict ``?``)

Each batch (``batches.toml``) is a directory ``batch-N/`` holding one TSV per
judged run: ``findings.tsv`` is the first-sight run (gradlint before anything
was tuned to the batch); other TSVs (``after-<sha>.tsv``) are later runs on the
same code, which are not first-sight figures. A TSV's ``# stage:`` and
``# gradlint:`` header lines say which.

A judged finding is keyed by (repo name, path inside the repo, line, code):
the code bases are pinned to commits, so lines are stable. Debatable counts
as false. ``fix``/``fix_ok`` record, for each finding whose fix is marked
safe, whether applying it would leave behaviour unchanged.

The checkouts are not committed. ``--build`` rebuilds them from local git
mirrors (``MIRRORS/<owner>+<name>/repo``, bare repositories holding the
commit) or, without ``--mirrors``, by cloning ``https://github.com/<owner>/<name>``.
Only the ``.py`` files are unpacked.

Only the standard library is used (``tomllib``: Python 3.11+).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
VERDICTS = ("TP", "FP", "debatable")
# A later run's findings that the first-sight run did not have are written as
# stubs ("?") until someone judges them; stubs count as not judged.
STUB = "?"
FIXES = ("safe", "unsafe", "none")
COLUMNS = ("repo", "commit", "path", "line", "code", "verdict", "fix", "fix_ok", "reason")

# (repo name, path inside the repo, line, code)
Key = Tuple[str, str, int, str]


@dataclass
class Judged:
    key: Key
    commit: str
    verdict: str
    fix: str
    fix_ok: str
    reason: str


@dataclass
class Run:
    """One judged TSV: a gradlint revision's findings on one batch."""

    name: str
    stage: str
    gradlint: str
    judged: List[Judged]


def load_batches(path: Path = HERE / "batches.toml") -> Dict[str, List[dict]]:
    data = tomllib.loads(path.read_text())
    return {b["name"]: b["repo"] for b in data["batch"]}


def read_run(path: Path) -> Run:
    """Parse one TSV; a malformed line raises ValueError naming the file and line."""
    meta: Dict[str, str] = {}
    judged: List[Judged] = []
    header_seen = False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
            continue
        cells = line.split("\t")
        if not header_seen:
            if tuple(cells) != COLUMNS:
                raise ValueError(f"{path}:{n}: expected the header {'/'.join(COLUMNS)}")
            header_seen = True
            continue
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{path}:{n}: {len(cells)} columns, expected {len(COLUMNS)}")
        repo, commit, rel, lineno, code, verdict, fix, fix_ok, reason = cells
        if verdict not in VERDICTS and verdict != STUB:
            raise ValueError(f"{path}:{n}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        if fix not in FIXES:
            raise ValueError(f"{path}:{n}: fix {fix!r} is not one of {', '.join(FIXES)}")
        if fix_ok != STUB and (fix == "safe") != (fix_ok in ("yes", "no")):
            raise ValueError(f"{path}:{n}: fix_ok is yes/no for a safe fix and - otherwise")
        judged.append(Judged((repo, rel, int(lineno), code), commit, verdict, fix, fix_ok, reason))
    return Run(path.stem, meta.get("stage", "first sight"), meta.get("gradlint", "?"), judged)


def precision(judged: Iterable[Judged]) -> Dict[str, Tuple[int, int]]:
    """Per code and under "all": (true, judged), debatable counted as false."""
    out: Dict[str, List[int]] = {}
    for j in judged:
        if j.verdict == STUB:
            continue
        for k in (j.key[3], "all"):
            cell = out.setdefault(k, [0, 0])
            cell[0] += j.verdict == "TP"
            cell[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def fix_counts(judged: Iterable[Judged]) -> Tuple[int, int]:
    """(safe fixes judged, safe fixes that would change behaviour)."""
    safe = [j for j in judged if j.fix == "safe" and j.fix_ok != STUB]
    return len(safe), sum(j.fix_ok == "no" for j in safe)


def pct(t: int, n: int) -> str:
    return f"{100 * t / n:.0f}%" if n else "-"


def report(batch: str, run: Run) -> List[str]:
    p = precision(run.judged)
    safe, broken = fix_counts(run.judged)
    repos = sorted({j.key[0] for j in run.judged})
    lines = [f"{batch} / {run.name} ({run.stage}; gradlint {run.gradlint}; findings in {', '.join(repos) or 'none'})"]
    for code in sorted(k for k in p if k != "all"):
        t, n = p[code]
        lines.append(f"  {code}: {t}/{n} true ({pct(t, n)})")
    t, n = p.get("all", (0, 0))
    lines.append(f"  all findings of the run: {t}/{n} true ({pct(t, n)})")
    lines.append(f"  safe fixes: {safe}, of which change behaviour: {broken}")
    stubs = sum(j.verdict == STUB or j.fix_ok == STUB for j in run.judged)
    if stubs:
        lines.append(f"  not judged yet: {stubs}")
    return lines


def batch_runs(batch_dir: Path) -> List[Run]:
    # findings.tsv (first sight) first, later runs after it.
    paths = sorted(batch_dir.glob("*.tsv"), key=lambda p: (p.name != "findings.tsv", p.name))
    return [read_run(p) for p in paths]


# --- checkouts -------------------------------------------------------------


def build(dest: Path, batches: Dict[str, List[dict]], mirrors: Optional[Path], only: Optional[str]) -> None:
    for batch, repos in batches.items():
        if only and batch != only:
            continue
        for r in repos:
            target = dest / batch / r["name"]
            stamp = target / ".first-sight-commit"
            if stamp.exists() and stamp.read_text().strip() == r["commit"]:
                continue
            target.mkdir(parents=True, exist_ok=True)
            if mirrors is not None:
                git_dir = mirrors / r["repository"].replace("/", "+") / "repo"
            else:
                clone = Path(tempfile.mkdtemp(prefix="first-sight-"))
                subprocess.run(
                    ["git", "clone", "--bare", "--filter=blob:none", f"https://github.com/{r['repository']}", str(clone)],
                    check=True,
                )
                git_dir = clone
            archive = subprocess.run(
                ["git", f"--git-dir={git_dir}", "archive", r["commit"], "--", ":(glob)**/*.py"],
                check=True,
                capture_output=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
            stamp.write_text(r["commit"] + "\n")


def run_gradlint(checkouts: Path, names: Sequence[str], gradlint: Sequence[str], extra: Sequence[str], jobs: int) -> List[dict]:
    """Default-rule findings on checkouts/<name>, paths relative to checkouts."""
    found: List[dict] = []
    for name in names:
        if not (checkouts / name).is_dir():
            raise SystemExit(f"error: {checkouts / name} is missing: build it with --build")
        proc = subprocess.run(
            [*gradlint, "check", "--output-format", "json", "--no-cache", "--exit-zero", "--jobs", str(jobs), *extra, name],
            cwd=checkouts,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"error: gradlint failed on {name}: {proc.stderr.strip()[-500:]}")
        found.extend(json.loads(proc.stdout or "[]"))
    return found


def finding_keys(findings: Iterable[dict]) -> Set[Key]:
    keys: Set[Key] = set()
    for f in findings:
        name, _, rel = f["filename"].replace("\\", "/").partition("/")
        keys.add((name, rel, int(f["location"]["row"]), f["code"]))
    return keys


def compare(judged: Sequence[Judged], reported: Set[Key]) -> Dict[str, List]:
    """Split judged findings into still reported and gone, and list the new ones."""
    known = {j.key for j in judged}
    return {
        "kept": [j for j in judged if j.key in reported],
        "gone": [j for j in judged if j.key not in reported],
        "new": sorted(reported - known),
    }


def fix_of(finding: dict) -> str:
    return (finding.get("fix") or {}).get("applicability") or "none"


def later_run(judged: Sequence[Judged], findings: Iterable[dict], commits: Dict[str, str]) -> List[Judged]:
    """A later revision's findings, judgements carried over from the first-sight run.

    A finding judged before keeps its verdict and reason; its fix judgement is
    kept only while the fix's applicability is the same. Everything else is a stub.
    """
    known = {j.key: j for j in judged}
    out: List[Judged] = []
    for f in findings:
        (key,) = finding_keys([f])
        fix = fix_of(f)
        old = known.get(key)
        if old is None:
            out.append(Judged(key, commits.get(key[0], "?"), STUB, fix, STUB if fix == "safe" else "-", "not judged yet"))
        elif old.fix == fix:
            out.append(Judged(key, old.commit, old.verdict, fix, old.fix_ok, old.reason))
        else:
            out.append(Judged(key, old.commit, old.verdict, fix, STUB if fix == "safe" else "-", old.reason))
    return sorted(out, key=lambda j: j.key)


def write_run(path: Path, header: Sequence[str], judged: Sequence[Judged]) -> None:
    rows = ["\t".join((j.key[0], j.commit, j.key[1], str(j.key[2]), j.key[3], j.verdict, j.fix, j.fix_ok, j.reason)) for j in judged]
    path.write_text("\n".join([*header, "\t".join(COLUMNS), *rows]) + "\n")


def rerun_report(batch: str, run: Run, split: Dict[str, List]) -> List[str]:
    kept, gone, new = split["kept"], split["gone"], split["new"]
    lines = [f"{batch}: against {run.name} ({run.stage}; gradlint {run.gradlint})"]
    t, n = precision(kept).get("all", (0, 0))
    lines.append(f"  still reported: {n} ({t} judged true; {pct(t, n)} of them)")
    lost = [j for j in gone if j.verdict == "TP"]
    lines.append(f"  no longer reported: {len(gone)} ({len(lost)} of them judged true)")
    for j in lost:
        lines.append(f"    lost TP {j.key[0]}/{j.key[1]}:{j.key[2]} {j.key[3]}")
    lines.append(f"  new, not judged: {len(new)}")
    for repo, rel, line, code in new:
        lines.append(f"    {repo}/{rel}:{line} {code}")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", help="only this batch (e.g. batch-1)")
    ap.add_argument("--build", type=Path, metavar="DIR", help="unpack the checkouts into DIR/<batch>/<name>")
    ap.add_argument("--mirrors", type=Path, help="directory of bare mirrors <owner>+<name>/repo (else clone from GitHub)")
    ap.add_argument("--rerun", type=Path, metavar="DIR", help="run gradlint on DIR/<batch>/<name> and compare")
    ap.add_argument("--gradlint", default=None, help="gradlint command (default: this Python's -m gradlint)")
    ap.add_argument("--gradlint-arg", action="append", default=[], help="extra argument to gradlint check (repeatable)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--write-run", metavar="NAME", help="with --rerun and --batch: write the findings to <batch>/NAME.tsv, judgements carried over, new ones as stubs")
    ap.add_argument("--revision", default="?", help="the gradlint revision measured, for --write-run's header")
    args = ap.parse_args(argv)

    batches = load_batches()
    if args.batch and args.batch not in batches:
        ap.error(f"no batch {args.batch!r} in batches.toml")
    if args.build:
        build(args.build, batches, args.mirrors, args.batch)
    gradlint = args.gradlint.split() if args.gradlint else [sys.executable, "-m", "gradlint"]
    for batch, repos in batches.items():
        if args.batch and batch != args.batch:
            continue
        runs = batch_runs(HERE / batch) if (HERE / batch).is_dir() else []
        if not runs:
            print(f"{batch}: not judged yet")
        for run in runs:
            print("\n".join(report(batch, run)))
        if not args.rerun:
            continue
        found = run_gradlint(args.rerun / batch, [r["name"] for r in repos], gradlint, args.gradlint_arg, args.jobs)
        first = runs[0] if runs else Run("findings", "first sight", args.revision, [])
        print("\n".join(rerun_report(batch, first, compare(first.judged, finding_keys(found)))))
        if args.write_run:
            commits = {r["name"]: r["commit"] for r in repos}
            stage = (
                "first sight (no rule changed for this batch)"
                if not runs
                else "after, not first sight (the batch was measured before)"
            )
            header = [
                f"# {batch}: default findings of gradlint {args.revision} on the batch's code bases"
                + (", judgements carried over from findings.tsv" if runs else ""),
                f"# gradlint: {args.revision}",
                f"# stage: {stage}",
            ]
            (HERE / batch).mkdir(exist_ok=True)
            write_run(HERE / batch / f"{args.write_run}.tsv", header, later_run(first.judged, found, commits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
