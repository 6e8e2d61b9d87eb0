"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request's diff.

``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=GL001::message``,
escaped as the Actions toolkit escapes them (properties also escape ``:`` and ``,``).
"""

from __future__ import annotations

from typing import Sequence

from gradlint.reporters import RunInfo, fixable, sorted_diagnostics
from gradlint.runner import FileReport


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    lines = []
    for path, d in sorted_diagnostics(reports):
        row, column, end_row, end_column = d.row, d.column, d.end_row, d.end_column
        if d.cell is not None and d.file_row is not None:
            # Annotations have no notion of notebook cells: they go on the line of the
            # .ipynb file (its JSON) that holds the code, and the message names the cell.
            row, column = d.file_row, d.file_column or 1
            end_row, end_column = d.file_end_row or row, d.file_end_column or column
        props = ",".join(
            f"{key}={escape_property(str(value))}"
            for key, value in (
                ("file", path),
                ("line", row),
                ("col", column),
                ("endLine", end_row),
                ("endColumn", end_column),
                ("title", d.code),
            )
        )
        message = f"cell {d.cell}, line {d.row}: {d.message}" if d.cell is not None else d.message
        if d.fix is not None:
            hint = "" if fixable(d, info.unsafe_fixes) else " (unsafe: needs --unsafe-fixes)"
            message += f"\nfix{hint}: {d.fix.message}"
        lines.append(f"::error {props}::{escape_data(message)}")
    return "".join(line + "\n" for line in lines)
