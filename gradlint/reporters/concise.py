"""One finding per line, ``path:row:col: CODE [*] message`` (``path:cell N:row:col`` in a
notebook), then a summary (flake8/Ruff style)."""

from __future__ import annotations

from typing import List, Sequence

from gradlint.reporters import RunInfo, fixable, location, sorted_diagnostics
from gradlint.results import FileReport


def _problems(n: int) -> str:
    return f"{n} problem" if n == 1 else f"{n} problems"


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    lines: List[str] = []
    pairs = sorted_diagnostics(reports)
    for path, d in pairs:
        # Right after the code, where Ruff puts it: a reader scanning codes sees it.
        mark = " [*]" if fixable(d, info.unsafe_fixes) else ""
        lines.append(f"{location(path, d)}: {d.code}{mark} {d.message}")
    if not info.quiet:
        lines += summary_lines(reports, info)
    return "".join(line + "\n" for line in lines)


def fixed_lines(reports: Sequence[FileReport], fixed: int) -> List[str]:
    """--show-fixes, laid out as Ruff lays it out: per file, then per rule."""
    from gradlint import catalog

    docs = catalog.load()
    lines = ["", f"Fixed {_problems(fixed)}:"]
    for report in sorted(reports, key=lambda r: r.path):
        if not report.fixed:
            continue
        lines.append(f"- {report.path}:")
        for code in sorted(report.fixed):
            name = docs[code].name if code in docs else code
            lines.append(f"    {report.fixed[code]} × {code} ({name})")
    lines.append("")
    return lines


def summary_lines(reports: Sequence[FileReport], info: RunInfo) -> List[str]:
    """The closing lines: how many problems were found, fixed and fixable."""
    pairs = sorted_diagnostics(reports)
    remaining = len(pairs)
    fixed = sum(sum(r.fixed.values()) for r in reports)
    if info.fix and fixed:
        shown = fixed_lines(reports, fixed) if info.show_fixes else []
        return shown + [f"Found {_problems(fixed + remaining)} ({fixed} fixed, {remaining} remaining)."]
    if not remaining:
        return [] if info.no_files else ["All checks passed!"]
    n_fixable = sum(1 for _, d in pairs if fixable(d, info.unsafe_fixes))
    # As Ruff: no count of fixes when there is none to apply.
    lines = [f"Found {_problems(remaining)} ({n_fixable} fixable with --fix)." if n_fixable else f"Found {_problems(remaining)}."]
    hidden = sum(1 for _, d in pairs if d.fix is not None and not fixable(d, info.unsafe_fixes))
    if hidden:
        lines.append(f"{hidden} {'more ' if n_fixable else ''}fixable with --fix --unsafe-fixes.")
    return lines
