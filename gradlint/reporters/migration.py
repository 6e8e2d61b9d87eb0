"""What ``gradlint migrate`` prints: pure functions of a :class:`MigrationRun`."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from gradlint.migrate import MigrationRun, label
from gradlint.reporters import location
from gradlint.reporters.json import diagnostic_dict


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def render_summary(run: MigrationRun) -> str:
    """Files scanned and changed, fixes per code, what is left for a human and what was skipped."""
    writing = run.mode.write
    changed = len(run.changed)
    lines: List[str] = [
        f"Scanned {_files(len(run.files))}; {'changed' if writing else 'would change'} {changed}."
    ]
    fixed = run.fixed
    if fixed or run.left:
        migrated = sum(fixed.values())
        lines.append(
            f"Legacy uses: {migrated} {'migrated' if writing else 'would be migrated'}, {len(run.left)} left for a human."
        )
    if fixed:
        lines.append(f"{'Applied' if writing else 'Would apply'} {sum(fixed.values())} fixes:")
        width = max(len(label(code)) for code in fixed)
        for code in sorted(fixed):
            lines.append(f"  {code}  {label(code):<{width}}  {fixed[code]}")
    if run.eval_mode_flags:
        n = run.eval_mode_flags
        lines.append(
            f"{n} `volatile=not <module>.training` flag{'s' if n != 1 else ''} {'dropped' if writing else 'would be dropped'}"
            " (ignored since PyTorch 0.4). In 0.3 such a flag meant no graph in eval mode: run evaluation under"
            " `torch.no_grad()`; `gradlint check` reports evaluation without it as GL101."
        )
    left = run.left
    if left:
        where = "" if writing else ", positions after migration"
        lines.append(f"Left for a human ({len(left)}{where}):")
        for path, d in left:
            hint = " (fix with --unsafe-fixes)" if d.fix is not None and not run.mode.unsafe_fixes else ""
            lines.append(f"  {location(path, d)}: {d.code} {d.message}{hint}")
    skipped = run.skipped
    if skipped:
        lines.append(f"Skipped ({len(skipped)}):")
        for f in skipped:
            lines.append(f"  {f.path}: {f.skipped}")
    return "".join(line + "\n" for line in lines)


def render_names(run: MigrationRun) -> str:
    """``--check``: the files that would change, one per line."""
    return "".join(f.path + "\n" for f in run.changed)


def render_json(run: MigrationRun) -> str:
    data: Dict[str, Any] = {
        "files_scanned": len(run.files),
        "files_changed": len(run.changed),
        "written": run.mode.write,
        "fixes": dict(sorted(run.fixed.items())),
        "eval_mode_flags_dropped": run.eval_mode_flags,
        "changed": [
            {"filename": f.path, "fixes": dict(sorted(f.fixed.items())), "diff": f.diff} for f in run.changed
        ],
        "left_for_human": [diagnostic_dict(path, d) for path, d in run.left],
        "skipped": [{"filename": f.path, "reason": f.skipped} for f in run.skipped],
        "errors": [{"filename": f.path, "message": m} for f in run.files for m in f.errors],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
