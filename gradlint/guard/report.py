"""Guard findings: suppression, the terminal section, the JSON report, the cross-check.

Nothing here imports torch: ``gradlint check --guard-report`` reads reports
written by an earlier pytest run.
"""

from __future__ import annotations

import json
import linecache
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

# The noqa comments `gradlint check` honours: bare (every code) or with a list of codes.
_NOQA_RE = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_CODE_SPLIT = re.compile(r"[,\s]+")
DOCS_URL = "https://gradlint.readthedocs.io/en/latest/rules/{code}/"


@dataclass(frozen=True)
class Site:
    """A place in the user's code: absolute path, 1-based row and column, end of the span."""

    path: str
    row: int
    column: int = 1
    end_row: int = 0
    end_column: int = 0

    def end(self) -> Tuple[int, int]:
        if self.end_row:
            return self.end_row, self.end_column
        return self.row, self.column


@dataclass
class GuardFinding:
    code: str
    message: str
    site: Site
    test: str
    # The other place involved: the forward that saved an edited tensor, the
    # forward whose graphs an accumulator keeps.
    related: Optional[Site] = None
    count: int = 1
    details: Dict[str, Any] = field(default_factory=dict)


def fmt_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            return f"{value:.1f} {unit}"
    return f"{n} B"  # pragma: no cover


def display_path(path: str, root: Optional[str]) -> str:
    """``path`` relative to ``root`` when it lies below it (as pytest and `gradlint check` print paths)."""
    if root:
        try:
            rel = os.path.relpath(path, root)
        except ValueError:  # another drive on Windows
            return path
        if not rel.startswith(os.pardir + os.sep) and rel != os.pardir:
            return rel
    return path


def suppressed(code: str, path: str, row: int) -> bool:
    """Whether the user's line carries ``# noqa`` (all codes) or ``# noqa: ...`` naming ``code``."""
    line = linecache.getline(path, row)
    if "#" not in line:
        return False
    for m in _NOQA_RE.finditer(line):
        if not _in_comment(line, m.start()):
            continue
        codes = m.group("codes")
        if not codes:
            return True
        if code in {c for c in _CODE_SPLIT.split(codes.upper().strip()) if c}:
            return True
    return False


def _in_comment(line: str, offset: int) -> bool:
    # A `#` inside a string literal does not start a comment; a cheap scan of
    # the quotes before the match tells the two apart on one line.
    quote = None
    i = 0
    while i < offset:
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return i == offset
        i += 1
    return quote is None


def to_dict(f: GuardFinding, root: Optional[str]) -> Dict[str, Any]:
    """A finding shaped like one item of ``gradlint check --output-format json``, plus the test id."""
    end_row, end_column = f.site.end()
    out: Dict[str, Any] = {
        "cell": None,
        "code": f.code,
        "end_location": {"row": end_row, "column": end_column},
        "filename": display_path(f.site.path, root),
        "fix": None,
        "location": {"row": f.site.row, "column": f.site.column},
        "message": f.message,
        "noqa_row": f.site.row,
        "url": DOCS_URL.format(code=f.code),
        "test": f.test,
        "count": f.count,
        "path": f.site.path,
    }
    if f.related is not None:
        out["related"] = {
            "filename": display_path(f.related.path, root),
            "path": f.related.path,
            "location": {"row": f.related.row, "column": f.related.column},
        }
    if f.details:
        out["details"] = f.details
    return out


def write_json(findings: Sequence[GuardFinding], path: str, root: Optional[str]) -> None:
    items = [to_dict(f, root) for f in sorted(findings, key=_order)]
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(items, indent=2, ensure_ascii=False) + "\n")


def _order(f: GuardFinding) -> Tuple[str, int, int, str, str]:
    return (f.site.path, f.site.row, f.site.column, f.code, f.test)


ARTIFACT = "test-artifact"
ARTIFACTS_HEADING = "test artifacts (a Mock recorded the arguments; not defects of the code under test):"


def is_artifact(details: Optional[Dict[str, Any]]) -> bool:
    """A finding about the test's own scaffolding (a Mock keeping its call arguments), not the code under test."""
    return bool(details) and details.get("category") == ARTIFACT


def terminal_lines(findings: Sequence[GuardFinding], root: Optional[str]) -> List[str]:
    lines = []
    defects = [f for f in findings if not is_artifact(f.details)]
    artifacts = [f for f in findings if is_artifact(f.details)]
    for group in (defects, artifacts):
        if group is artifacts and artifacts:
            lines.append(ARTIFACTS_HEADING)
        for f in sorted(group, key=_order):
            where = f"{display_path(f.site.path, root)}:{f.site.row}:{f.site.column}"
            lines.append(f"{where}: {f.code} {f.message}")
            lines.append(f"    in {f.test}")
    return lines


def summary(findings: Sequence[GuardFinding]) -> str:
    artifacts = sum(1 for f in findings if is_artifact(f.details))
    n = len(findings) - artifacts
    text = f"{n} finding{'s' if n != 1 else ''}" if n or artifacts else "no findings"
    if artifacts:
        text += f" and {artifacts} test artifact{'s' if artifacts != 1 else ''}"
    return text


# --- the cross-check: `gradlint check --guard-report PATH` -------------------------------


class GuardReportError(Exception):
    pass


def load(path: str) -> List[Dict[str, Any]]:
    """The findings of a report written by ``pytest --gradlint-guard-report=PATH``."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise GuardReportError(f"--guard-report: cannot read {path}: {exc}") from exc
    if not isinstance(data, list) or not all(_well_formed(item) for item in data):
        raise GuardReportError(f"--guard-report: {path} is not a report written by `pytest --gradlint-guard-report`")
    base = os.path.dirname(os.path.abspath(path))
    for item in data:
        if not item.get("path"):
            item["path"] = os.path.join(base, item["filename"])
    return data


def _well_formed(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("code"), str)
        and isinstance(item.get("message"), str)
        and isinstance(item.get("filename"), str)
        and isinstance(item.get("test"), str)
        and isinstance(item.get("location"), dict)
        and isinstance(item["location"].get("row"), int)
    )


def _tests_text(tests: Iterable[str]) -> str:
    names = sorted(set(tests))
    text = names[0]
    if len(names) > 1:
        text += f" and {len(names) - 1} more test{'s' if len(names) > 2 else ''}"
    return text


def cross_check(reports: list, guard: Sequence[Dict[str, Any]], read_sources: bool = False) -> list:
    """Mark the static findings that the guard saw at run time; add the ones only it saw.

    A static finding is confirmed by a guard finding of the same code in the same
    file on a row the static finding spans; its message ends with "confirmed by
    <test id>", in every output format. Guard findings that no static finding
    matches, in the files checked, become findings of their own whose message
    says so: they count as findings (exit code 1).
    """
    from gradlint.runner import Diagnostic

    by_file: Dict[str, List[Dict[str, Any]]] = {}
    for item in guard:
        by_file.setdefault(os.path.normcase(os.path.abspath(item["path"])), []).append(item)
    out = []
    for report in reports:
        items = by_file.get(os.path.normcase(os.path.abspath(report.path)), [])
        if not items:
            out.append(report)
            continue
        matched = set()
        diagnostics = []
        for d in report.diagnostics:
            tests = []
            for i, item in enumerate(items):
                row = item["location"]["row"]
                if item["code"] == d.code and d.cell is None and d.row <= row <= max(d.end_row, d.row):
                    tests.append(item["test"])
                    matched.add(i)
            if tests:
                d = replace(d, message=f"{d.message}; confirmed by {_tests_text(tests)}")
            diagnostics.append(d)
        unseen: Dict[Tuple[str, int, int], List[Dict[str, Any]]] = {}
        for i, item in enumerate(items):
            if i not in matched:
                key = (item["code"], item["location"]["row"], item["location"].get("column", 1))
                unseen.setdefault(key, []).append(item)
        for (code, row, column), group in sorted(unseen.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
            first = group[0]
            end = first.get("end_location") or {}
            tests = _tests_text(item["test"] for item in group)
            message = f"seen at run time by {tests}, by no static rule: {first['message']}"
            diagnostics.append(
                Diagnostic(code, message, row, column, end.get("row", row), end.get("column", column))
            )
        report.diagnostics = sorted(diagnostics, key=lambda d: (d.row, d.column, d.code))
        if read_sources and report.source is None:
            try:
                with open(report.path, encoding="utf-8") as fh:
                    report.source = fh.read()
            except (OSError, UnicodeDecodeError):
                pass
        out.append(report)
    return out
