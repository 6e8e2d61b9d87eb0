#!/usr/bin/env python3
"""Run gradlint over the benchmark corpus the way users do, and prove it harmless.

    .venv/bin/python benchmarks/reliability.py                  # builds the corpus (run.py) if needed
    .venv/bin/python benchmarks/reliability.py --corpus DIR     # an already built corpus, read only

On scratch copies of the corpus (never the corpus itself):

1. ``gradlint check --select ALL --output-format json``: every file gets
   findings, none, or a clean ``GL000`` (read or parse error); no internal
   error (exit 2, ``internal error`` on stderr).
2. ``gradlint check --select ALL --fix`` and, on a second copy, the same with
   ``--unsafe-fixes``: every changed file still parses (and compiles where the
   original did); ``difflib`` finds no changed line outside the lines of the
   fixes step 1 offered (no collateral edits), but for one-line imports whose
   names the fixed file no longer uses (removed when several fixes together
   remove their last use), and counts the changed lines beside the lines of
   those fixes; no file is refused ("not written").
3. The same ``--fix`` again, on the files it changed (it left the others as
   they were, having nothing to apply to them): it changes no byte and
   reports nothing fixed.
4. ``gradlint migrate`` on a third copy, then again: the same checks, the
   allowed lines being those of the migrations' own codes.

Prints the figures and exits 1 if any assertion fails. The corpus is built by
``run.py`` (``build_corpus``, imported: one definition of what it contains).
"""

from __future__ import annotations

import argparse
import ast
import collections
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as benchmark  # noqa: E402  (benchmarks/run.py: the corpus builder)

from gradlint.engine import SourceSyntaxError, parse  # noqa: E402
from gradlint.files import ReadError, decode  # noqa: E402
from gradlint.migrate import migrations  # noqa: E402

GRADLINT = [sys.executable, "-m", "gradlint"]
# Rows of the original file each fix touches: {file: {code: set of rows}}
Spans = Dict[str, Dict[str, Set[int]]]


class Failed(Exception):
    pass


def gradlint(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess:
    # No cache: every run reads every file; the cache is tested elsewhere.
    env = dict(os.environ, GRADLINT_NO_CACHE="1", NO_COLOR="1")
    proc = subprocess.run([*GRADLINT, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1) or "internal error" in proc.stderr or "Traceback" in proc.stderr:
        raise Failed(f"gradlint {' '.join(args)}: exit {proc.returncode}\n{proc.stderr[-4000:]}")
    return proc


def snapshot(root: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def copy(corpus: Path, scratch: Path, name: str) -> Path:
    target = scratch / name / "corpus"
    shutil.copytree(corpus, target, ignore=shutil.ignore_patterns(".complete"))
    return target.parent


def edit_rows(edit: dict) -> Set[int]:
    """Rows of the original text an edit replaces; an insertion counts the row it goes before."""
    row, end_row = edit["location"]["row"], edit["end_location"]["row"]
    puts_nothing_before = edit["content"] == "" or edit["content"].endswith(("\n", "\r"))
    if end_row > row and edit["end_location"]["column"] == 1 and puts_nothing_before:
        end_row -= 1  # ends at the start of a line, and puts nothing before it: that line is kept
    return set(range(row, end_row + 1))


def diff_rows(old: str, new: str) -> Set[int]:
    """Rows of ``old`` that difflib sees changed; an insertion counts the row it goes before."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    rows: Set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            rows.update(range(i1 + 1, i2 + 1) if i2 > i1 else {i1 + 1})
    return rows


def unused_import(line: str, new_text: str) -> bool:
    """Whether ``line`` is a one-line import of names that ``new_text`` no longer uses.

    Such a line goes (or loses a name) when the last use of what it imports is
    fixed: each fix's own edits include it only when that fix alone removes the
    last use, so when several fixes together do, none of them lists it.
    """
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return False
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Import, ast.ImportFrom)):
        return False
    names = [(a.asname or a.name).split(".")[0] for a in tree.body[0].names]
    return any(re.search(rf"\b{re.escape(n)}\b", new_text) is None for n in names)


def text_of(data: bytes) -> Optional[str]:
    try:
        return decode(data)[0]
    except ReadError:
        return None


def compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, "<corpus>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


def check(work: Path, n_files: int) -> Tuple[collections.Counter, Spans, Dict[str, str]]:
    proc = gradlint(["check", "--select", "ALL", "--unsafe-fixes", "--output-format", "json", "corpus"], work)
    findings = json.loads(proc.stdout or "[]")
    per_rule = collections.Counter(f["code"] for f in findings)
    spans: Spans = collections.defaultdict(lambda: collections.defaultdict(set))
    applicability: Dict[str, str] = {}
    unreadable = {}
    for f in findings:
        if f["code"] == "GL000":
            unreadable[f["filename"]] = f["message"]
        if f.get("fix"):
            applicability.setdefault(f["code"], f["fix"]["applicability"])
            rows = spans[f["filename"]][f["code"] + ":" + f["fix"]["applicability"]]
            for edit in f["fix"]["edits"]:
                rows.update(edit_rows(edit))
    print(f"check: {n_files:,} files, {len(findings):,} findings in {len({f['filename'] for f in findings}):,} files, exit {proc.returncode}")
    for code, n in sorted(per_rule.items()):
        print(f"  {code}  {n:6,}")
    for name, message in sorted(unreadable.items()):
        print(f"  GL000 {name}: {message}")
    return per_rule, spans, unreadable


def allowed_rows(spans: Spans, name: str, keep) -> Set[int]:
    return set().union(*(rows for key, rows in spans.get(name, {}).items() if keep(*key.split(":"))))


def compare(
    label: str, before: Dict[str, bytes], after: Dict[str, bytes], spans: Spans, keep, root: str = "corpus"
) -> Dict[str, int]:
    """Checks every changed file; figures for the report."""
    problems: List[str] = []
    changed = diff_lines = span_lines = imports = exact = 0
    if set(before) != set(after):
        problems.append(f"files appeared or vanished: {sorted(set(before) ^ set(after))[:5]}")
    for name in sorted(before):
        old, new = before[name], after.get(name, before[name])
        if old == new:
            continue
        changed += 1
        key = f"{root}/{name}"
        old_text, new_text = text_of(old), text_of(new)
        if old_text is None or new_text is None:
            problems.append(f"{key}: the fixed file does not decode")
            continue
        try:
            parse(new_text)
        except SourceSyntaxError as exc:
            problems.append(f"{key}: does not parse after the fix: {exc}")
        if compiles(old_text) and not compiles(new_text):
            problems.append(f"{key}: compiled before, not after")
        rows = diff_rows(old_text, new_text)
        allowed = allowed_rows(spans, key, keep)
        old_lines = old_text.splitlines()
        cleanup = {r for r in rows - allowed if r <= len(old_lines) and unused_import(old_lines[r - 1], new_text)}
        collateral = sorted(rows - allowed - cleanup)
        if collateral:
            problems.append(f"{key}: lines changed outside any fix: {collateral[:10]}")
        diff_lines += len(rows)
        span_lines += len(allowed)
        imports += len(cleanup)
        exact += rows == allowed | cleanup
    print(
        f"{label}: {changed:,} files changed; {diff_lines:,} original lines changed (difflib), "
        f"{span_lines:,} lines in the offered fixes' spans, {imports:,} import lines left unused by several fixes together; "
        f"{exact:,} files where the changed lines are exactly those; "
        f"{len(problems)} problems"
    )
    for p in problems[:20]:
        print(f"  PROBLEM {p}")
    if problems:
        raise Failed(f"{label}: {len(problems)} problems")
    return {"changed": changed, "diff_lines": diff_lines, "span_lines": span_lines, "imports": imports, "exact": exact}


def fixed_count(output: str) -> int:
    m = re.search(r"\((\d+) fixed, \d+ remaining\)", output)
    return int(m.group(1)) if m else 0


def fix_runs(corpus: Path, scratch: Path, spans: Spans, unsafe: bool) -> Dict[str, int]:
    label = "check --fix" + (" --unsafe-fixes" if unsafe else "")
    work = copy(corpus, scratch, "unsafe" if unsafe else "safe")
    before = snapshot(work / "corpus")
    args = ["check", "--select", "ALL", "--fix", *(["--unsafe-fixes"] if unsafe else []), "corpus"]
    proc = gradlint(args, work)
    refused = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    after = snapshot(work / "corpus")
    applied = fixed_count(proc.stdout)
    print(f"{label}: {applied:,} fixes applied, exit {proc.returncode}, {len(refused)} files not written")
    for line in refused[:20]:
        print(f"  {line}")
    # Applied fixes are safe ones, or any with --unsafe-fixes.
    figures = compare(label, before, after, spans, lambda code, applicability: unsafe or applicability == "safe")
    # Again, on the files it changed: the others it left as they were, with nothing to apply.
    changed = [f"corpus/{n}" for n in sorted(after) if after[n] != before[n]]
    proc = gradlint([*args[:-1], *changed], work) if changed else None
    again = snapshot(work / "corpus")
    if again != after or (proc is not None and fixed_count(proc.stdout)):
        changed = [n for n in after if after[n] != again.get(n)]
        raise Failed(f"{label} a second time changed {len(changed)} files: {changed[:5]}")
    print(f"{label} again: nothing changed")
    if refused:
        raise Failed(f"{label}: {len(refused)} files not written")
    return dict(figures, applied=applied)


def migrate_runs(corpus: Path, scratch: Path, spans: Spans) -> Dict[str, int]:
    work = copy(corpus, scratch, "migrate")
    before = snapshot(work / "corpus")
    proc = gradlint(["migrate", "corpus"], work)
    after = snapshot(work / "corpus")
    m = re.search(r"Applied (\d+) fixes", proc.stdout)
    applied = int(m.group(1)) if m else 0
    skipped = [line for line in proc.stdout.splitlines() if "left untouched" in line or "not written" in line]
    print(f"migrate: {applied:,} fixes applied, exit {proc.returncode}, {len(skipped)} files left untouched")
    for line in skipped[:20]:
        print(f" {line}")
    codes = set(migrations())
    # migrate applies its codes' fixes, the unsafe ones it trusts included.
    figures = compare("migrate", before, after, spans, lambda code, applicability: code in codes)
    changed = [f"corpus/{n}" for n in sorted(after) if after[n] != before[n]]
    if changed:
        gradlint(["migrate", *changed], work)
    if snapshot(work / "corpus") != after:
        raise Failed("migrate a second time changed files")
    print("migrate again: nothing changed")
    return dict(figures, applied=applied, skipped=len(skipped))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="an already built corpus (default: run.py builds it in benchmarks/.work)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies (their path is printed)")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve() if args.corpus else benchmark.build_corpus()
    n_files, n_lines, n_bytes = benchmark.corpus_stats(corpus)
    print(f"corpus: {corpus} ({n_files:,} files, {n_lines:,} lines, {n_bytes / 1e6:.1f} MB)", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="gradlint-reliability-"))
    started = time.monotonic()
    try:
        check_dir = copy(corpus, scratch, "check")
        before = snapshot(check_dir / "corpus")
        per_rule, spans, unreadable = check(check_dir, n_files)
        if snapshot(check_dir / "corpus") != before:
            raise Failed("check without --fix changed files")
        safe = fix_runs(corpus, scratch, spans, unsafe=False)
        unsafe = fix_runs(corpus, scratch, spans, unsafe=True)
        migrated = migrate_runs(corpus, scratch, spans)
    except Failed as exc:
        print(f"FAILED: {exc}")
        return 1
    finally:
        if args.keep:
            print(f"scratch copies kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print()
    print(f"files: {n_files:,}; findings: {sum(per_rule.values()):,}; GL000 (clean read/parse errors): {len(unreadable)}")
    print(f"fixes applied: safe {safe['applied']:,}, with unsafe {unsafe['applied']:,}, migrate {migrated['applied']:,}")
    print(
        "files changed: safe {0[changed]:,}, with unsafe {1[changed]:,}, migrate {2[changed]:,}; "
        "lines changed / lines in fix spans + unused imports removed: "
        "{0[diff_lines]:,}/{0[span_lines]:,}+{0[imports]:,}, {1[diff_lines]:,}/{1[span_lines]:,}+{1[imports]:,}, "
        "{2[diff_lines]:,}/{2[span_lines]:,}+{2[imports]:,}".format(safe, unsafe, migrated)
    )
    print("internal errors: 0; corrupted files: 0; collateral edits: 0; second runs changed: 0")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
