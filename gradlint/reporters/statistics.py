"""``--statistics``: how many findings each rule has, most frequent first (Ruff's layout).

Text: ``count<TAB>code<TAB>[*] name`` (``[*]`` when some are fixable, ``[ ]``
when none are), then the summary; with ``--output-format json``, a list of
``{code, name, count, fixable, fixable_count}`` as Ruff prints it.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Dict, List, Sequence

from gradlint import catalog
from gradlint.reporters import RunInfo, fixable, sorted_diagnostics
from gradlint.reporters.concise import summary_lines
from gradlint.results import FileReport


def counts(reports: Sequence[FileReport], info: RunInfo) -> List[Dict[str, Any]]:
    total: Counter = Counter()
    can_fix: Counter = Counter()
    for _, d in sorted_diagnostics(reports):
        total[d.code] += 1
        can_fix[d.code] += fixable(d, info.unsafe_fixes)
    docs = catalog.load()
    rows = [
        {
            "code": code,
            "name": docs[code].name if code in docs else "",
            "count": n,
            "fixable": can_fix[code] > 0,
            "fixable_count": can_fix[code],
        }
        for code, n in total.items()
    ]
    rows.sort(key=lambda row: (-row["count"], row["code"]))
    return rows


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    rows = counts(reports, info)
    count_width = max((len(str(row["count"])) for row in rows), default=1)
    code_width = max((len(row["code"]) for row in rows), default=1)
    lines = [
        f"{row['count']:>{count_width}}\t{row['code']:<{code_width}}\t{'[*]' if row['fixable'] else '[ ]'} {row['name']}"
        for row in rows
    ]
    if not info.quiet:
        lines += summary_lines(reports, info)
    return "".join(line + "\n" for line in lines)


def render_json(reports: Sequence[FileReport], info: RunInfo) -> str:
    return json.dumps(counts(reports, info), indent=2) + "\n"
