"""Render verify results: a readable text table, or JSON. Pure functions of the results."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from gradlint.reporters.json import diagnostic_dict
from gradlint.verify.probes import CONFIRMED, ProbeResult
from gradlint.verify.runs import RunStatus, fmt_bytes
from gradlint.verify.scripts import CRASHED, NOT_REACHED, TIMEOUT, FileVerification, FindingReport, summary

INDENT = "    "


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("x", "s")) else f"{n} {word}s"


# -- probes ---------------------------------------------------------------------


def probes_text(results: Sequence[ProbeResult]) -> str:
    return "".join(probe_text(r) for r in results) + probes_summary(results)


def probe_text(r: ProbeResult) -> str:
    """One probe's lines (``verify --probes`` prints them as each probe finishes)."""
    lines = [f"{r.code}  {r.verdict:<9}  {r.claim}"]
    for label, value in r.observed:
        value = value.replace("\n", " ")
        lines.append(f"{INDENT}{label} = {value}")
    for ok, claim in r.confirms:
        lines.append(f"{INDENT}{'holds' if ok else 'FAILS'}: {claim}")
    if r.error:
        lines.append(f"{INDENT}error: {r.error}")
    return "\n".join(lines) + "\n"


def probes_summary(results: Sequence[ProbeResult]) -> str:
    confirmed = sum(r.verdict == CONFIRMED for r in results)
    seconds = sum(r.seconds for r in results)
    torch = next((r.torch for r in results if r.torch), "?")
    tail = f"{_plural(len(results), 'probe')} on torch {torch}: {confirmed} confirmed"
    others = len(results) - confirmed
    if others:
        tail += f", {others} not ({', '.join(sorted({r.verdict for r in results if r.verdict != CONFIRMED}))})"
    return f"{tail} ({seconds:.1f} s of runs).\n"


def probes_json(results: Sequence[ProbeResult]) -> str:
    torch = next((r.torch for r in results if r.torch), None)
    items = [
        {
            "code": r.code,
            "name": r.name,
            "claim": r.claim,
            "verdict": r.verdict,
            "observed": [{"label": label, "value": value} for label, value in r.observed],
            "confirms": [{"claim": claim, "holds": ok} for ok, claim in r.confirms],
            "error": r.error,
            "seconds": round(r.seconds, 3),
        }
        for r in results
    ]
    return json.dumps({"torch": torch, "probes": items}, indent=2, ensure_ascii=False) + "\n"


# -- files ----------------------------------------------------------------------


def _run_line(label: str, status: Optional[RunStatus], extra: str = "") -> str:
    if status is None:
        return f"{INDENT[:2]}{label}: not run (no fix to apply)"
    text = f"{status.text} ("
    if status.code_seconds is not None:
        text += f"code {status.code_seconds:.2f} s, "
    text += f"process {status.seconds:.1f} s"
    if status.cuda_peak is not None:
        text += f", CUDA peak {fmt_bytes(status.cuda_peak)}"
    return f"{INDENT[:2]}{label}: {text}){extra}"


def _finding_lines(f: FindingReport) -> List[str]:
    d = f.diagnostic
    lines = [f"{INDENT[:2]}{d.row}:{d.column} {d.code} {f.verdict}"]
    lines.extend(f"{INDENT * 2}{text}" for text in f.observed)
    fix = f.fix
    if fix is None:
        return lines
    if not fix.applied:
        lines.append(f"{INDENT}fix: {fix.note}")
        return lines
    lines.append(f"{INDENT}fix: {fix.verdict} ({fix.applicability}: {fix.title})")
    for label, before, after in fix.memory:
        lines.append(f"{INDENT * 2}{label}: {fmt_bytes(before)} → {fmt_bytes(after)}")
    lines.extend(f"{INDENT * 2}{text}" for text in fix.details)
    return lines


def files_text(files: Sequence[FileVerification]) -> str:
    return "".join(file_text(fv) for fv in files) + files_summary(files)


def file_text(fv: FileVerification) -> str:
    """One file's lines (``verify FILE ...`` prints them as each file finishes)."""
    lines = [fv.path]
    if fv.error:
        lines.append(f"{INDENT[:2]}error: {fv.error}")
    elif not fv.findings:
        lines.append(f"{INDENT[:2]}no findings: nothing to verify")
    else:
        if fv.note:
            lines.append(f"{INDENT[:2]}{fv.note}")
        lines.append(_run_line("as written", fv.original))
        fixes = f", {_plural(fv.fixes_applied, 'fix')} applied" if fv.fixed is not None else ""
        lines.append(_run_line("as fixed  ", fv.fixed, fixes))
        for f in fv.findings:
            lines.extend(_finding_lines(f))
    return "\n".join(lines) + "\n"


def files_summary(files: Sequence[FileVerification]) -> str:
    counts = summary(files)
    n_findings = sum(len(fv.findings) for fv in files)
    parts = [f"{n} {verdict.lower()}" for verdict, n in counts.items() if not verdict.startswith("fix ")]
    fix_parts = [f"{n} {verdict[4:].lower()}" for verdict, n in counts.items() if verdict.startswith("fix ")]
    tail = f"{_plural(len(files), 'file')}, {_plural(n_findings, 'finding')}"
    if parts:
        tail += ": " + ", ".join(parts)
    if fix_parts:
        n_fixes = sum(n for verdict, n in counts.items() if verdict.startswith("fix "))
        tail += f"; {_plural(n_fixes, 'fix')}: " + ", ".join(fix_parts)
    errors = sum(1 for fv in files if fv.error)
    if errors:
        tail += f"; {_plural(errors, 'file')} not run"
    return f"\n{tail}.\n"


def _run_json(status: Optional[RunStatus]) -> Optional[Dict[str, Any]]:
    if status is None:
        return None
    return {
        "status": status.kind,
        "text": status.text,
        "seconds": round(status.code_seconds, 4) if status.code_seconds is not None else None,
        "process_seconds": round(status.seconds, 3),
        "cuda_peak_bytes": status.cuda_peak,
    }


def _finding_json(path: str, f: FindingReport) -> Dict[str, Any]:
    """``gradlint check``'s JSON for the finding, plus what verify saw."""
    item = diagnostic_dict(path, f.diagnostic)
    item.update(
        verdict=f.verdict,
        observed=f.observed,
        saved_bytes=f.memory.get("records-graph"),
        retained_bytes=f.memory.get("retains-memory"),
        # Whether the flagged line ran as written: a verdict vouches only for lines that ran.
        reached=f.verdict not in (NOT_REACHED, TIMEOUT, CRASHED),
        why_not_run=f.why_not_run,
        next_step=f.next_step,
    )
    if f.fix is not None and item["fix"] is not None:
        item["fix"].update(
            applied=f.fix.applied,
            verdict=f.fix.verdict,
            details=f.fix.details,
            memory=[{"what": label, "as_written": before, "as_fixed": after} for label, before, after in f.fix.memory],
            note=f.fix.note or None,
        )
    return item


def files_json(files: Sequence[FileVerification]) -> str:
    torch = next((fv.torch for fv in files if fv.torch), None)
    items = [
        {
            "filename": fv.path,
            "error": fv.error,
            "note": fv.note,
            "sha256": fv.sha256,
            "runs": {"as_written": _run_json(fv.original), "as_fixed": _run_json(fv.fixed)},
            "fixes_applied": fv.fixes_applied,
            "findings": [_finding_json(fv.path, f) for f in fv.findings],
        }
        for fv in files
    ]
    return json.dumps({"torch": torch, "files": items, "summary": summary(files)}, indent=2, ensure_ascii=False) + "\n"
