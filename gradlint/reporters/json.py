"""A JSON list shaped like Ruff's ``--output-format json``, so existing tooling can read it."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Sequence

from gradlint.reporters import RunInfo, sorted_diagnostics
from gradlint.runner import Diagnostic, FileReport


def diagnostic_dict(path: str, d: Diagnostic) -> Dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "message": d.fix.message,
            "edits": [
                {
                    "content": e.content,
                    "location": {"row": e.row, "column": e.column},
                    "end_location": {"row": e.end_row, "column": e.end_column},
                }
                for e in d.fix.edits
            ],
        }
    return {
        "cell": None,
        "code": d.code,
        "end_location": {"row": d.end_row, "column": d.end_column},
        "filename": path,
        "fix": fix,
        "location": {"row": d.row, "column": d.column},
        "message": d.message,
        "noqa_row": d.row,
        "url": d.url,
    }


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    items: List[Dict[str, Any]] = [diagnostic_dict(p, d) for p, d in sorted_diagnostics(reports)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
