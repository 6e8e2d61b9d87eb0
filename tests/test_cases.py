"""Shape cases: small realistic sources with the exact findings each rule owes them.

Each file under ``tests/cases/<CODE>/`` is linted with every rule enabled, and the
findings of ``<CODE>`` are compared with the markers written on its lines:

- ``# expect: GL301`` -- exactly one finding of that code starts on this line;
  ``# expect: GL301:12`` also pins its 1-based column. Several entries
  (``# expect: GL301:5 GL301:20``) expect several findings on the line.
- ``# expect-preview: GL301`` -- a finding that only the preview tier owes (its
  premises rest on a guess from names): with ``preview`` on it is expected as by
  ``expect``; in the default tier, the line is banned as by ``expect-not``.
- ``# expect-default: GL101`` -- the other way round: a finding the default tier
  owes and the preview tier reports elsewhere (at the forward a name shows it, not
  at the call that reaches it), so there the line is banned.
- ``# expect-not: GL301`` -- a line where a finding would be a false positive.
  Any finding of the directory's code on a line without an ``expect`` marker is
  a failure already; the marker says where the trap is.

Each file is linted under its path inside ``tests/cases`` (``GL101/test_model.py``),
so that a case is a unit test by its own name (``test_*.py``), not because the
case set lives under ``tests/``.

A case whose facts lie in other files of its project (who calls a function,
what a class imported from another module is) has them in a directory named
after it (``GL105/cli_command_in_project/``): those files are indexed as its
neighbours (``GL105/<name>.py``), as a run over the project would, and are no
cases themselves.

Files under ``tests/cases/legacy/`` are linted with the default selection
(what ``gradlint check`` reports) and compared on every code, except the
findings on the line that holds the legacy ``async=`` keyword itself (what
that line is reported as is a separate decision; these cases are about the
findings elsewhere in the file).

The docstring at the top of each file names the shape, and says ``Precision
case`` (a shape that must not be reported) or ``Recall case`` (a shape that
must be); ``(kept)`` marks a shape the rules already get right and must keep
getting right while their other cases are fixed.

``tests/cases/EXPECTED_FAILURES.txt`` lists the cases the rules still get
wrong (``<dir>/<file>.py  reason``); they run as strict xfails, so a case that
starts passing must leave the list, and a case that is not listed must pass.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from gradlint.config import default_codes, expand
from gradlint.engine import LintSettings, lint_source
from gradlint.options import RuleOptions
from gradlint.semantic import project

CASES_DIR = Path(__file__).resolve().parent / "cases"
MANIFEST = CASES_DIR / "EXPECTED_FAILURES.txt"
LEGACY = "legacy"

_CODE = r"GL\d{3}"
_MARKER = re.compile(rf"#\s*(?P<kind>expect|expect-not|expect-preview|expect-default)\s*:\s*(?P<items>{_CODE}(?::\d+)?(?:[\s,]+{_CODE}(?::\d+)?)*)\s*$")
_ITEM = re.compile(rf"(?P<code>{_CODE})(?::(?P<col>\d+))?")
_ASYNC_KEYWORD = re.compile(r"\basync\s*=")

Expected = Tuple[str, int, Optional[int]]  # code, row, 1-based column or None


def case_files() -> List[Path]:
    return sorted(p for p in CASES_DIR.glob("*/*.py"))


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def read_manifest() -> Dict[str, str]:
    listed: Dict[str, str] = {}
    for number, line in enumerate(MANIFEST.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition(" ")
        assert reason.strip(), f"{MANIFEST.name}:{number}: {name} has no reason"
        assert name not in listed, f"{MANIFEST.name}:{number}: {name} is listed twice"
        listed[name] = reason.strip()
    return listed


def markers(source: str, preview: bool = False) -> Tuple[List[Expected], Dict[int, List[str]]]:
    """(the findings the ``expect`` markers ask for, the codes ``expect-not`` bans by row),
    in the default tier or, with ``preview``, in the preview tier.

    Comments are found with the tokenizer so that a marker-like text inside a
    string is not one; a legacy file that does not tokenize falls back to lines."""
    comments: List[Tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments.append((tok.start[0], tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        comments = [(row, line[line.index("#") :]) for row, line in enumerate(source.splitlines(), 1) if "#" in line]
    expected: List[Expected] = []
    banned: Dict[int, List[str]] = {}
    for row, text in comments:
        m = _MARKER.search(text)
        if m is None:
            assert not re.match(r"#\s*expect", text), f"line {row}: malformed marker {text!r}"
            continue
        kind = m.group("kind")
        if kind == "expect-preview":
            kind = "expect" if preview else "expect-not"
        elif kind == "expect-default":
            kind = "expect-not" if preview else "expect"
        for item in _ITEM.finditer(m.group("items")):
            if kind == "expect":
                col = item.group("col")
                expected.append((item.group("code"), row, int(col) if col else None))
            else:
                banned.setdefault(row, []).append(item.group("code"))
    return expected, banned


def compared(path: Path, source: str, preview: bool = False) -> List[Tuple[str, int, int]]:
    """The findings (code, row, 1-based column) this case is judged on."""
    relative = path.relative_to(CASES_DIR).as_posix()
    legacy = path.parent.name == LEGACY
    codes = default_codes() if legacy else expand(["ALL"])
    neighbours = path.with_suffix("")
    index = None
    if neighbours.is_dir():
        others = [(f"{path.parent.name}/{p.name}", p.read_text(encoding="utf-8")) for p in sorted(neighbours.glob("*.py"))]
        index = project.build([(relative, source), *others])
    findings = lint_source(source, relative, LintSettings(codes, RuleOptions(preview=preview), index=index)).findings
    found = [(f.code, f.start[0], f.start[1] + 1) for f in findings]
    if legacy:
        lines = source.splitlines()
        return [f for f in found if not _ASYNC_KEYWORD.search(lines[f[1] - 1])]
    return [f for f in found if f[0] == path.parent.name]


def mismatches(path: Path) -> List[str]:
    source = path.read_text(encoding="utf-8")
    problems = _mismatches(path, source, False)
    if _PREVIEW_MARKER.search(source):
        problems += [f"preview tier: {p}" for p in _mismatches(path, source, True)]
    return problems


_PREVIEW_MARKER = re.compile(r"#\s*expect-(?:preview|default)\s*:")


def _mismatches(path: Path, source: str, preview: bool) -> List[str]:
    expected, banned = markers(source, preview)
    found = compared(path, source, preview)
    problems: List[str] = []
    left = Counter(found)
    for code, row, col in expected:
        match = next((f for f in left if left[f] and f[0] == code and f[1] == row and (col is None or f[2] == col)), None)
        if match is None:
            where = f"{row}:{col}" if col else f"line {row}"
            problems.append(f"missed (recall): {code} at {where}")
        else:
            left[match] -= 1
    for (code, row, col), n in sorted(left.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        for _ in range(n):
            kind = "banned by expect-not" if code in banned.get(row, []) else "not expected"
            problems.append(f"false positive (precision): {code} at {row}:{col} ({kind})")
    return problems


def _params():
    listed = read_manifest()
    for path in case_files():
        name = case_id(path)
        marks = [pytest.mark.xfail(strict=True, reason=listed[name])] if name in listed else []
        yield pytest.param(path, id=name, marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_case(path):
    problems = mismatches(path)
    assert not problems, f"{case_id(path)}:\n  " + "\n  ".join(problems)


# -- the case set itself ------------------------------------------------------------


def test_manifest_names_existing_cases():
    names = {case_id(p) for p in case_files()}
    stale = sorted(set(read_manifest()) - names)
    assert not stale, f"{MANIFEST.name} lists cases that do not exist: {stale}"


def test_kept_cases_are_never_expected_to_fail():
    # A kept shape is one the rules got right when it was written: listing it
    # would hide the very regression it is there to catch.
    listed = read_manifest()
    kept = [case_id(p) for p in case_files() if re.match(r"\w+ case \(kept\)", _docstring(p))]
    assert kept
    assert not [name for name in kept if name in listed]


def _docstring(path: Path) -> str:
    source = _ASYNC_KEYWORD.sub("non_blocking=", path.read_text(encoding="utf-8"))
    return ast.get_docstring(ast.parse(source)) or ""


@pytest.mark.parametrize("path", case_files(), ids=case_id)
def test_case_is_well_formed(path):
    source = path.read_text(encoding="utf-8")
    directory = path.parent.name
    assert re.fullmatch(_CODE, directory) or directory == LEGACY, f"unexpected directory {directory}"
    expected, banned = markers(source)
    assert expected or banned, "a case marks at least one line"
    if directory != LEGACY:
        codes = {code for code, _, _ in expected} | {c for cs in banned.values() for c in cs}
        assert codes == {directory}, f"markers name {sorted(codes)}, the directory is {directory}"
        ast.parse(source)  # valid Python as written: only the legacy cases may not be
    else:
        assert _ASYNC_KEYWORD.search(source), "a legacy case holds the `async=` keyword"
    doc = _docstring(path)
    assert doc, "a case starts with a docstring naming its shape"
    assert re.match(r"(Precision|Recall) case\b", doc), "the docstring says Precision case or Recall case"
    if doc.startswith("Precision case"):
        assert banned, "a precision case marks the lines that must not be reported"
    else:
        assert markers(source, preview=True)[0], "a recall case marks the lines that must be reported"
    lines = len(source.splitlines())
    assert 8 <= lines <= 60, f"{lines} lines: a case is a small file"
