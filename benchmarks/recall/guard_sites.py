#!/usr/bin/env python3
"""Recall sites from the runtime: the guard's findings that no static rule reports.

    cd PROJECT && pytest --gradlint-guard-report=guard.json
    python benchmarks/recall/guard_sites.py guard.json --root PROJECT --out guard_sites.toml
    python benchmarks/recall/score.py --sites guard_sites.toml --mirror DIR

It runs ``gradlint check --select ALL --preview --guard-report REPORT`` on the
files the report names (a preview rule that reports it has reached it too),
takes every finding "seen at run time ..., by no static rule",
and writes it as a ``[[site]]`` of ``sites.toml``'s format: the file pinned by
the commit checked out in PROJECT (``before``) and its sha256, the line, the
code the guard reported (``expect``), ``cause = "runtime-only"``, and
``found_by = "guard"`` with the test that saw it. Such a site has no fix
commit (the guard found it, no maintainer fixed it yet); ``score.py`` accepts
it without ``fix``. Static recall on these sites starts at 0 by construction:
it rises as rules learn to see what only the run saw. Review each one (is it
a real waste, is the line the one to fix) before adding it to ``sites.toml``.

A file that is not committed as it is on disk cannot be pinned and is left
out, with a line on stderr saying so; so are findings in files outside the
project root, and test artifacts (the cross-check leaves them out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

_RUNTIME = re.compile(r"^seen at run time by (?P<tests>.+?), by no static rule: (?P<message>.*)$", re.S)


def _git(root: Path, *args: str) -> Optional[str]:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _project(url: str, root: Path) -> str:
    m = re.search(r"[:/]([^/:]+)/([^/]+?)(?:\.git)?/?$", url)
    return f"{m.group(1)}/{m.group(2)}" if m else root.name


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def runtime_only(command: Sequence[str], report: Path, root: Path) -> List[dict]:
    """The findings of ``gradlint check --guard-report`` that only the guard saw."""
    items = json.loads(report.read_text(encoding="utf-8"))
    files = sorted({i.get("project_path") or i["filename"] for i in items})
    files = [f for f in files if (root / f).is_file()]
    if not files:
        return []
    proc = subprocess.run(
        [*command, "check", "--select", "ALL", "--preview", "--output-format", "json", "--no-cache", "--quiet",
         "--exit-zero", "--guard-report", str(report.resolve()), *files],
        cwd=root, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"gradlint exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return [f for f in json.loads(proc.stdout or "[]") if _RUNTIME.match(f["message"])]


def sites(findings: Sequence[dict], root: Path) -> List[Dict[str, object]]:
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None:
        raise SystemExit(f"{root} is not in a git checkout: a site is pinned by a commit")
    top_path = Path(top)
    head = _git(root, "rev-parse", "HEAD")
    url = _git(root, "remote", "get-url", "origin") or str(top_path)
    project = _project(url, top_path)
    out: List[Dict[str, object]] = []
    seen = set()
    for f in findings:
        path = (root / f["filename"]).resolve()
        try:
            rel = path.relative_to(top_path.resolve()).as_posix()
        except ValueError:
            print(f"left out: {f['filename']} is outside {top_path}", file=sys.stderr)
            continue
        data = path.read_bytes()
        if _git(top_path, "diff", "--quiet", "HEAD", "--", rel) is None or _git(top_path, "ls-files", "--error-unmatch", rel) is None:
            print(f"left out: {rel} differs from commit {head[:12]} (commit it to pin the site)", file=sys.stderr)
            continue
        m = _RUNTIME.match(f["message"])
        row = f["location"]["row"]
        sid = f"guard-{project.split('/')[-1]}-{Path(rel).stem}-{row}-{f['code'].lower()}"
        if sid in seen:
            continue
        seen.add(sid)
        out.append({
            "id": sid,
            "project": project,
            "repository": url,
            "before": head,
            "path": rel,
            "lines": [row],
            "expect": f["code"],
            "cause": "runtime-only",
            "sha256": hashlib.sha256(data).hexdigest(),
            "description": m.group("message").splitlines()[0][:300],
            "found_by": "guard",
            "test": m.group("tests"),
        })
    return out


def to_toml(entries: Sequence[Dict[str, object]]) -> str:
    lines = ["# Sites the guard found at run time and no static rule reported. See benchmarks/recall/guard_sites.py.\n"]
    for entry in entries:
        lines.append("\n[[site]]\n")
        for key, value in entry.items():
            if isinstance(value, list):
                lines.append(f"{key} = [{', '.join(str(v) for v in value)}]\n")
            else:
                lines.append(f"{key} = {_toml_str(str(value))}\n")
    return "".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, help="a report written by `pytest --gradlint-guard-report`")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the project's root, where pytest ran (default: here)")
    parser.add_argument("--out", type=Path, default=None, help="write the sites here (default: stdout)")
    parser.add_argument("--gradlint", default=f"{shlex.quote(sys.executable)} -m gradlint", help="the command that runs gradlint")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    entries = sites(runtime_only(shlex.split(args.gradlint), args.report, root), root)
    text = to_toml(entries)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"{len(entries)} site{'s' if len(entries) != 1 else ''} written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
