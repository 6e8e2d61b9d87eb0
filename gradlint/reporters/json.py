"""A JSON list shaped like Ruff's ``--output-format json``, so existing tooling can read it.

In a notebook, rows and columns are relative to the cell given in ``cell`` (1-based,
counting every cell of the notebook), as in Ruff; ``cell`` is null in a ``.py`` file.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Sequence

from gradlint.reporters import RunInfo, sorted_diagnostics
from gradlint.results import Diagnostic, FileReport, TextEdit


def _edit_dict(e: TextEdit) -> Dict[str, Any]:
    out: Dict[str, Any] = {
        "content": e.content,
        "location": {"row": e.row, "column": e.column},
        "end_location": {"row": e.end_row, "column": e.end_column},
    }
    if e.cell is not None:
        # In a notebook an edit may be in another cell than its finding (an import).
        out["cell"] = e.cell
    return out


def diagnostic_dict(path: str, d: Diagnostic) -> Dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "message": d.fix.message,
            "edits": [_edit_dict(e) for e in d.fix.edits],
        }
    return {
        "cell": d.cell,
        "code": d.code,
        "end_location": {"row": d.end_row, "column": d.end_column},
        "filename": path,
        "fix": fix,
        "location": {"row": d.row, "column": d.column},
        "message": d.message,
        "noqa_row": d.noqa_row or d.row,
        "url": d.url,
    }


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    items: List[Dict[str, Any]] = [diagnostic_dict(p, d) for p, d in sorted_diagnostics(reports)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
