#!/usr/bin/env python3
"""How much 0.3-era autograd code ``gradlint migrate`` leaves in legacy code bases.

    .venv/bin/python benchmarks/legacy_uses.py            # the legacy code bases of the corpus
    .venv/bin/python benchmarks/legacy_uses.py DIR...     # any directories

Counts the code uses of ``volatile=``, ``Variable(`` and ``.data[0]`` (text in
comments and strings is blanked first, so docstrings and commented-out code do
not count) in every ``.py`` file, copies the code bases to a temporary
directory, runs ``gradlint migrate`` on the copy, and counts again. Prints, per
code base and in all, the uses before and after and the share left. The
corpus is that of ``benchmarks/run.py`` (its ``ERA`` marks the legacy code
bases), built in ``benchmarks/.work/corpus``; it is only read.

Only the standard library is used (and gradlint, run as a command).
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from collections import Counter
from pathlib import Path
from typing import Dict, List, Sequence

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

PATTERNS = {
    "volatile=": re.compile(r"\bvolatile\s*=(?!=)"),
    "Variable(": re.compile(r"\bVariable\s*\("),
    ".data[0]": re.compile(r"\.data\s*\[\s*0\s*\]"),
}


def code_only(source: str) -> str:
    """``source`` with every comment and string literal replaced by spaces (lines kept)."""
    lines = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return "\n".join(re.sub(r"#.*", "", line.rstrip("\n")) for line in lines)  # not tokenizable: drop comments
    blank = [list(line) for line in lines]
    for tok in tokens:
        if tok.type not in (tokenize.COMMENT, tokenize.STRING):
            continue
        (srow, scol), (erow, ecol) = tok.start, tok.end
        for row in range(srow, erow + 1):
            if row - 1 >= len(blank):
                break
            line = blank[row - 1]
            start = scol if row == srow else 0
            end = ecol if row == erow else len(line)
            for i in range(start, min(end, len(line))):
                if line[i] != "\n":
                    line[i] = " "
    return "".join("".join(line) for line in blank)


def count_uses(root: Path) -> Counter:
    found: Counter = Counter()
    for path in sorted(root.rglob("*.py")):
        try:
            text = code_only(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        for name, pattern in PATTERNS.items():
            found[name] += len(pattern.findall(text))
    return found


def legacy_code_bases() -> List[Path]:
    from run import ERA  # the benchmark corpus list

    corpus = HERE / ".work" / "corpus"
    found = [corpus / name for name, era in sorted(ERA.items()) if era == "legacy" and (corpus / name).is_dir()]
    if not found:
        raise SystemExit(f"no legacy code base in {corpus}: build the corpus first (benchmarks/run.py)")
    return found


def gradlint() -> List[str]:
    local = ROOT / ".venv" / "bin" / "gradlint"
    return [str(local)] if local.exists() else [sys.executable, "-m", "gradlint"]


def measure(bases: Sequence[Path]) -> Dict[str, Dict[str, Counter]]:
    results: Dict[str, Dict[str, Counter]] = {}
    with tempfile.TemporaryDirectory(prefix="gradlint-legacy-") as tmp:
        for base in bases:
            copy = Path(tmp) / base.name
            shutil.copytree(base, copy)
            before = count_uses(copy)
            subprocess.run([*gradlint(), "migrate", str(copy)], cwd=tmp, capture_output=True, text=True)
            results[base.name] = {"before": before, "after": count_uses(copy)}
    return results


def render(results: Dict[str, Dict[str, Counter]]) -> str:
    names = list(PATTERNS)
    head = "| code base | " + " | ".join(f"`{n}` before → after" for n in names) + " | all before | all after | left |"
    lines = [head, "|" + "---|" * (len(names) + 4)]
    total_before: Counter = Counter()
    total_after: Counter = Counter()
    for base, r in results.items():
        b, a = r["before"], r["after"]
        total_before.update(b)
        total_after.update(a)
        lines.append(_row(base, b, a, names))
    lines.append(_row("**all**", total_before, total_after, names))
    return "\n".join(lines) + "\n"


def _row(label: str, before: Counter, after: Counter, names: Sequence[str]) -> str:
    b, a = sum(before[n] for n in names), sum(after[n] for n in names)
    share = f"{100 * a / b:.1f}%" if b else "-"
    cells = " | ".join(f"{before[n]} → {after[n]}" for n in names)
    return f"| {label} | {cells} | {b} | {a} | {share} |"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="code bases to measure (default: the legacy corpus)")
    args = parser.parse_args(argv)
    bases = [d.resolve() for d in args.dirs] or legacy_code_bases()
    print(render(measure(bases)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
