#!/usr/bin/env python3
"""How much 0.3-era autograd code ``gradlint migrate`` leaves in legacy code bases.

    .venv/bin/python benchmarks/legacy_uses.py            # the legacy code bases of the corpus
    .venv/bin/python benchmarks/legacy_uses.py DIR...     # any directories
    .venv/bin/python benchmarks/legacy_uses.py --list     # also list every use left, and the lookalikes

Counts the code uses of ``volatile=``, ``Variable(`` and ``.data[0]`` (text in
comments and strings is blanked first, so docstrings and commented-out code do
not count) in every ``.py`` file, copies the code bases to a temporary
directory, runs ``gradlint migrate`` on the copy, and counts again. Prints, per
code base and in all, the uses before and after and the share left. The
corpus is that of ``benchmarks/run.py`` (its ``ERA`` marks the legacy code
bases), built in ``benchmarks/.work/corpus``; it is only read.

A spelling that is not legacy autograd at all is a *lookalike* and is not
counted, decided by the same semantic facts the rules use (gradlint's
semantic model on the parsed file), never by names: a ``Variable(`` whose
name resolves to something other than ``torch.autograd.Variable`` (NLTK's
logic variables, a class of the file); a ``.data[0]`` that GL003's facts show
is no scalar read (a row of a batch, ``out.data[0].cpu()``; the receiver is no
tensor, or evidently has a dimension, or is an attribute that a class of the
file assigns to its own instances); a ``.data[0]`` that is assigned to
(``p.data[0] = v``: writing an element means what it meant in 0.3, which had
no 0-dim tensors to write into, and a parameter made 1-dim stays 1-dim); a
``volatile=`` that defines a parameter of a function of the file (the
file's own API, not torch's keyword), or that is handed to a function of the
file that never hands it on to ``Variable(..., volatile=...)`` on a path that
runs on torch 0.4 or later. A use whose name, receiver or callee is unknown
counts. Lookalikes are reported in their own column.

Code that runs only on torch older than 0.4 (the ``else:`` of ``if
IS_TORCH_04:``, decided by ``gradlint.semantic.versions``), and a
``volatile=`` handed to a function of the file that passes it on to
``Variable`` only there, is kept by ``migrate`` on purpose: its authors
support 0.3 with it. It is reported in a column of its own, counted neither
before nor after.
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
from typing import Dict, List, Optional, Sequence, Tuple

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


LOOKALIKE = "lookalike"
OLD_TORCH = "0.3-only"


def count_uses(root: Path, listing: Optional[List[str]] = None) -> Counter:
    """Uses per pattern under ``root``, lookalikes under ``LOOKALIKE``; with ``listing``,
    each use (``path:line: [pattern] ...``) is appended to it."""
    found: Counter = Counter()
    for path in sorted(root.rglob("*.py")):
        try:
            source = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        # Read as ``migrate`` reads it: ``x.cuda(async=True)`` renamed first, so that a
        # file that parses only then is classified by its facts (the patterns do not
        # include ``async``, so the counts are unchanged).
        source = _renamed(source)
        text = code_only(source)
        matches = [(name, m) for name, pattern in PATTERNS.items() for m in pattern.finditer(text)]
        if not matches:
            continue
        kinds = _classify(source, str(path))
        lines = source.splitlines()
        for name, m in matches:
            row = text.count("\n", 0, m.start()) + 1
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1)
            kind = kinds.get((name, row, col), name)
            found[kind] += 1
            if listing is not None:
                where = path.relative_to(root)
                label = name if kind == name else f"{name}, {kind}"
                listing.append(f"{where}:{row}: [{label}] {lines[row - 1].strip()[:120] if row <= len(lines) else ''}")
    return found


def _renamed(source: str) -> str:
    from gradlint.legacy_syntax import rename_async_arguments

    try:
        return rename_async_arguments(source)[0]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source


def _classify(source: str, path: str) -> Dict[Tuple[str, int, int], str]:
    """(pattern, line, column) of the matches that are no use to count, mapped to
    ``LOOKALIKE`` (the semantic model shows they are not legacy autograd) or
    ``OLD_TORCH`` (legacy autograd kept for torch 0.3 on purpose); nothing when the
    file does not parse (everything counts)."""
    import libcst as cst

    from gradlint import parsing
    from gradlint.rule import FileContext
    from gradlint.rules.gl003_data_index_scalar import scalar_read
    from gradlint.semantic.torch_api import TORCH_04, VARIABLE
    from gradlint.semantic.tree import walk
    from gradlint.semantic.versions import runs_only_before

    try:
        module = parsing.parse_module(source)
    except Exception:  # not Python 3 (or too deep): nothing is known
        return {}
    ctx = FileContext(path, source, module)
    sem = ctx.semantic
    out: Dict[Tuple[str, int, int], str] = {}

    def mark(pattern: str, node: cst.CSTNode, kind: str, shift: int = 0) -> None:
        (row, col), _ = ctx.span(node)
        out[(pattern, row, col + shift)] = kind

    for node in walk(module, into_functions=True):
        if isinstance(node, cst.Call):
            func = node.func
            last = func.attr if isinstance(func, cst.Attribute) else func
            if not (isinstance(last, cst.Name) and last.value == "Variable"):
                continue
            qualified = sem.names.qualnames(func)
            # Known to be something else: an import from another library, a def or class here.
            if qualified and not qualified & VARIABLE:
                mark("Variable(", last, LOOKALIKE)
            elif sem.names.is_call_to(node, VARIABLE) and runs_only_before(sem, node, TORCH_04):
                mark("Variable(", last, OLD_TORCH)
        elif isinstance(node, cst.Param) and node.name.value == "volatile" and node.default is not None:
            mark("volatile=", node.name, LOOKALIKE)  # the file's own API, not torch's keyword
        elif isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "volatile":
            kind = _volatile_keyword(sem, ctx.parent(node), node, runs_only_before, TORCH_04, VARIABLE)
            if kind is not None:
                mark("volatile=", node.keyword, kind)
        elif isinstance(node, cst.Subscript) and _is_data_zero(node):
            data = node.value
            if runs_only_before(sem, node, TORCH_04):
                mark(".data[0]", data.attr, OLD_TORCH, -1)  # type: ignore[union-attr]
            elif _not_a_scalar_read(ctx, node, scalar_read):
                mark(".data[0]", data.attr, LOOKALIKE, -1)  # type: ignore[union-attr]
    return out


def _volatile_keyword(sem, call, arg, runs_only_before, torch_04, variable) -> Optional[str]:
    """How ``volatile=`` handed to ``call`` counts: None (a use), ``OLD_TORCH`` or
    ``LOOKALIKE``. Torch's ``Variable`` takes it as the 0.3 flag unless the call runs
    only on 0.3; a function of the file takes it as torch's flag only where it hands
    the value on to ``Variable(..., volatile=...)`` on a path that runs on 0.4 or
    later. Any other callee (unknown, another library) is taken as torch's."""
    if sem.names.is_call_to(call, variable):
        return OLD_TORCH if runs_only_before(sem, call, torch_04) else None
    if runs_only_before(sem, call, torch_04):
        return OLD_TORCH
    callee = sem.calls.local_function(call)
    if callee is None:
        return None
    params = callee.params
    param = arg.keyword.value
    if not any(p.name.value == param for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
        return None  # taken by ``**kwargs``: where it goes is not shown
    if sem.calls.forwarded_to(callee, param, "volatile", 2, variable, modern=True) is not None:
        return None
    if sem.calls.forwarded_to(callee, param, "volatile", 2, variable) is not None:
        return OLD_TORCH  # reaches ``Variable`` only in the 0.3 branch
    return LOOKALIKE


def _is_data_zero(node) -> bool:
    import libcst as cst

    data = node.value
    if not (isinstance(data, cst.Attribute) and data.attr.value == "data" and len(node.slice) == 1):
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"


def _not_a_scalar_read(ctx, node, scalar_read) -> bool:
    """GL003's facts: ``[0]`` followed by an attribute, an index or a call reads a row (in
    0.3 ``.data[0]`` of a 0-dim value was a Python number, which has none of those), and
    a receiver that is no tensor or evidently has a dimension has rows too. Written
    (``p.data[0] = v``, ``p.data[0] += v``) it is no read at all: an element write did
    the same in 0.3 as it does today (GL204 reports the in-place edit through ``.data``
    on its own)."""
    import libcst as cst

    parent = ctx.parent(node)
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign)) and getattr(parent, "target", None) is node:
        return True
    if scalar_read(ctx, node) is not None:
        return False
    row = (isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is node) or (
        isinstance(parent, cst.Call) and parent.func is node
    )
    receiver = ctx.semantic.values.value(node.value.value)
    return row or receiver.not_tensor or receiver.shape == "batch"


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


def measure(bases: Sequence[Path], listing: Optional[List[str]] = None) -> Dict[str, Dict[str, Counter]]:
    results: Dict[str, Dict[str, Counter]] = {}
    with tempfile.TemporaryDirectory(prefix="gradlint-legacy-") as tmp:
        for base in bases:
            copy = Path(tmp) / base.name
            shutil.copytree(base, copy)
            before = count_uses(copy)
            subprocess.run([*gradlint(), "migrate", str(copy)], cwd=tmp, capture_output=True, text=True)
            left: Optional[List[str]] = [] if listing is not None else None
            results[base.name] = {"before": before, "after": count_uses(copy, left)}
            if listing is not None and left:
                listing.extend(f"{base.name}/{line}" for line in left)
    return results


def render(results: Dict[str, Dict[str, Counter]]) -> str:
    names = list(PATTERNS)
    head = (
        "| code base | "
        + " | ".join(f"`{n}` before → after" for n in names)
        + " | all before | all after | left | lookalikes (not counted) | 0.3-only branch, kept (not counted) |"
    )
    lines = [head, "|" + "---|" * (len(names) + 6)]
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
    return f"| {label} | {cells} | {b} | {a} | {share} | {before[LOOKALIKE]} | {before[OLD_TORCH]} |"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="code bases to measure (default: the legacy corpus)")
    parser.add_argument("--list", action="store_true", help="also list the uses left after migrating, and the lookalikes")
    args = parser.parse_args(argv)
    bases = [d.resolve() for d in args.dirs] or legacy_code_bases()
    listing: Optional[List[str]] = [] if args.list else None
    print(render(measure(bases, listing)), end="")
    if listing:
        print()
        print("\n".join(listing))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
