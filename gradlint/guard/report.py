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
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

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


def to_dict(f: GuardFinding, root: Optional[str], project_root: Optional[str] = None) -> Dict[str, Any]:
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
    if project_root:
        # What the cross-check matches on: the same in every checkout of the project.
        out["project_path"] = display_path(f.site.path, project_root).replace(os.sep, "/")
    if f.related is not None:
        out["related"] = {
            "filename": display_path(f.related.path, root),
            "path": f.related.path,
            "location": {"row": f.related.row, "column": f.related.column},
        }
    if f.details:
        out["details"] = f.details
    return out


def write_json(findings: Sequence[GuardFinding], path: str, root: Optional[str], project_root: Optional[str] = None) -> None:
    items = [to_dict(f, root, project_root) for f in sorted(findings, key=_order)]
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
    return details is not None and details.get("category") == ARTIFACT


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


def _parts(path: str) -> Tuple[str, ...]:
    return tuple(p for p in os.path.normcase(path).replace("\\", "/").split("/") if p not in ("", "."))


def _assign(reports: list, guard: Sequence[Dict[str, Any]]) -> Tuple[Dict[int, List[Dict[str, Any]]], List[Dict[str, Any]]]:
    """Guard findings per checked file (by index in ``reports``), and those that match no checked file.

    A finding matches the file at its absolute path; failing that (a report
    written in another checkout, or on another machine), the checked file whose
    path ends with the finding's project-relative path.
    """
    by_abs = {os.path.normcase(os.path.abspath(r.path)): i for i, r in enumerate(reports)}
    parts = [_parts(os.path.abspath(r.path)) for r in reports]
    out: Dict[int, List[Dict[str, Any]]] = {}
    unmatched = []
    for item in guard:
        index = by_abs.get(os.path.normcase(os.path.abspath(item["path"])))
        if index is None:
            rel = _parts(item.get("project_path") or item["filename"])
            if rel and ".." not in rel and not os.path.isabs(item.get("project_path") or item["filename"]):
                hits = [i for i, p in enumerate(parts) if p[-len(rel):] == rel]
                if hits:
                    index = min(hits, key=lambda i: len(parts[i]))
        if index is None:
            unmatched.append(item)
        else:
            out.setdefault(index, []).append(item)
    return out, unmatched


def _count(items: Sequence[Dict[str, Any]]) -> int:
    return sum(int(item.get("count") or 1) for item in items)


_TIMES_RE = re.compile(r"\((?:once|\d+ times); [0-9.]+ (?:B|KiB|MiB|GiB) saved for backward in all")


def _summed_message(group: Sequence[Dict[str, Any]]) -> str:
    """The first test's message, with a GL101 count and size summed over every test of the group."""
    message = group[0]["message"]
    if len(group) == 1:
        return message
    total = _count(group)
    sizes = [(item.get("details") or {}).get("saved_bytes") for item in group]
    if all(isinstance(n, int) for n in sizes) and _TIMES_RE.search(message):
        times = "once" if total == 1 else f"{total} times"
        return _TIMES_RE.sub(f"({times} over {len(group)} tests; {fmt_bytes(sum(n for n in sizes if isinstance(n, int)))} saved for backward in all",
                             message, count=1)
    return message


def cross_check(reports: list, guard: Sequence[Dict[str, Any]], read_sources: bool = False,
                warn: Optional[Callable[[str], None]] = None) -> list:
    """Mark the static findings that the guard saw at run time; add the ones only it saw.

    A static finding is confirmed by a guard finding of the same code in the same
    file on a row the static finding spans; its message ends with "confirmed by
    <test id>", in every output format. Guard findings that no static finding
    matches, in the files checked, become findings of their own whose message
    says so: they count as findings (exit code 1). Test artifacts (arguments a
    Mock recorded) neither confirm nor count: ``warn`` names them apart, and the
    findings that match no checked file.
    """
    from gradlint.runner import Diagnostic

    artifacts = [item for item in guard if is_artifact(item.get("details"))]
    assigned, unmatched = _assign(reports, [item for item in guard if not is_artifact(item.get("details"))])
    if warn is not None and unmatched:
        names = sorted({item.get("project_path") or item["filename"] for item in unmatched})
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        warn(f"--guard-report: {len(unmatched)} guard finding{'s match' if len(unmatched) != 1 else ' matches'} no file of this "
             f"run: {', '.join(names[:3])}{more}")
    if warn is not None and artifacts:
        where = sorted({f"{item.get('project_path') or item['filename']}:{item['location']['row']}" for item in artifacts})
        warn(f"--guard-report: {len(artifacts)} test artifact{'s' if len(artifacts) != 1 else ''} (a Mock recorded the "
             f"arguments; not defects of the code under test) left out: {', '.join(where)}")
    out = []
    for index, report in enumerate(reports):
        items = assigned.get(index, [])
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
            seen_by = _tests_text(item["test"] for item in group)
            message = f"seen at run time by {seen_by}, by no static rule: {_summed_message(group)}"
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
