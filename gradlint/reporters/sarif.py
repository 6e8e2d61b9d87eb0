"""SARIF 2.1.0, the format GitHub code scanning (and most code-review tools) import.

Every catalog rule is listed under ``tool.driver.rules`` with its metadata, so
an alert shows the rule's name, summary and full page (``help.markdown``) and
links to its docs; results carry their fix as ``fixes[].artifactChanges``.
Columns are Unicode code points (``columnKind``), as everywhere in gradlint.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from pathlib import Path, PurePath
from typing import Any, Dict, List, Sequence
from urllib.parse import quote

from gradlint import __version__, catalog
from gradlint.docs import rule_markdown
from gradlint.reporters import RunInfo, sorted_diagnostics
from gradlint.runner import Diagnostic, FileReport

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = catalog.DOCS_URL.split("rules/")[0]
SRCROOT = "%SRCROOT%"


def artifact_location(path: str) -> Dict[str, Any]:
    """A relative path stays relative to %SRCROOT% (where gradlint ran); an absolute one becomes a file: URI."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(PurePath(path).as_posix()), "uriBaseId": SRCROOT}


def _region(row: int, column: int, end_row: int, end_column: int) -> Dict[str, int]:
    # SARIF's endColumn is the column after the region, as gradlint's end columns are.
    return {"startLine": row, "startColumn": column, "endLine": end_row, "endColumn": end_column}


def unwrap(text: str) -> str:
    """Join the catalog's hard-wrapped lines: plain-text viewers wrap for themselves."""
    return re.sub(r"(?<!\n)\n(?!\n)", " ", text)


def _rule(doc: catalog.RuleDoc) -> Dict[str, Any]:
    return {
        "id": doc.code,
        "name": doc.name,
        "shortDescription": {"text": unwrap(doc.summary)},
        "fullDescription": {"text": unwrap(doc.what)},
        "help": {"text": unwrap(doc.why), "markdown": rule_markdown(doc)},
        "helpUri": doc.url,
        "defaultConfiguration": {"enabled": doc.default, "level": "error"},
        "properties": {"fix": doc.fix, "tags": ["pytorch", "autograd"]},
    }


def _result(path: str, d: Diagnostic, index: Dict[str, int]) -> Dict[str, Any]:
    location = artifact_location(path)
    if d.cell is not None and d.file_row is not None:
        # SARIF has no notebook cells, and a region is in the artifact's own text:
        # in a notebook, the line of its JSON that holds the code. The message and a
        # property say the cell and the line in it, as the notebook shows them.
        region = _region(d.file_row, d.file_column or 1, d.file_end_row or d.file_row, d.file_end_column or 1)
        text = f"cell {d.cell}, line {d.row}: {d.message}"
    else:
        region = _region(d.row, d.column, d.end_row, d.end_column)
        text = d.message
    result: Dict[str, Any] = {
        "ruleId": d.code,
        "level": "error",
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": region}}],
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if d.cell is not None:
        result["properties"] = {"cell": d.cell, "cellRegion": _region(d.row, d.column, d.end_row, d.end_column)}
    # A notebook's fix edits are relative to its cells, not to the file's JSON:
    # they are left out rather than given at the wrong place.
    if d.fix is not None and d.fix.edits and d.cell is None:
        result["fixes"] = [
            {
                "description": {"text": d.fix.message},
                "artifactChanges": [
                    {
                        "artifactLocation": location,
                        "replacements": [
                            {
                                "deletedRegion": _region(e.row, e.column, e.end_row, e.end_column),
                                "insertedContent": {"text": e.content},
                            }
                            for e in d.fix.edits
                        ],
                    }
                ],
            }
        ]
    if d.fix is not None and (d.fix.edits or d.cell is not None):
        result.setdefault("properties", {})["applicability"] = d.fix.applicability
    return result


def render(reports: Sequence[FileReport], info: RunInfo) -> str:
    docs = list(catalog.load().values())
    index = {doc.code: i for i, doc in enumerate(docs)}
    notifications: List[Dict[str, Any]] = [
        {
            "level": "error",
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(r.path)}}],
        }
        for r in reports
        for message in r.errors
    ]
    run: Dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "gradlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(doc) for doc in docs],
            }
        },
        "invocations": [
            {
                "executionSuccessful": not any(r.internal_error for r in reports),
                "toolExecutionNotifications": notifications,
            }
        ],
        "results": [_result(path, d, index) for path, d in sorted_diagnostics(reports)],
        "columnKind": "unicodeCodePoints",
    }
    if info.cwd is not None:
        # A directory URI needs its trailing slash for relative URIs to resolve inside it.
        run["originalUriBaseIds"] = {SRCROOT: {"uri": posixpath.join(Path(info.cwd).as_uri(), "")}}
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
