#!/usr/bin/env python3
"""Recall at first sight: score.py on a first-sight sites file, split by scope and era.

    .venv/bin/python benchmarks/recall/first-sight-score.py --mirror DIR [--sites FILE] [score.py options]

Runs ``score.py --json`` on ``first-sight-1.toml`` (or ``--sites``), then reads
each site's ``in_scope`` and ``year`` fields (which only the first-sight files
carry) and prints recall overall, on the in-scope sites, per expected rule
(in-scope sites only) and by the era of the fix (up to 2019, 2020-21, 2022 and
later). Any other option is passed to score.py unchanged (``--preview`` adds
the preview tier).

A rule in the preview tier as a whole (``preview = true`` in its catalog
entry) does not run by default: the row "in scope, default rules" leaves its
sites out, and its own row, with ``--preview``, is its figure.

Only the standard library is used.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
CATALOG = HERE.parent.parent / "rules"
DEFAULT_SITES = HERE / "first-sight-1.toml"
ERAS = (("up to 2019", 0, 2019), ("2020-21", 2020, 2021), ("2022+", 2022, 9999))


def era(year: int) -> str:
    for name, lo, hi in ERAS:
        if lo <= year <= hi:
            return name
    raise ValueError(f"no era for {year}")


def preview_rules(catalog: Path = CATALOG) -> frozenset:
    """The codes of the rules that only ``--preview`` runs."""
    return frozenset(
        entry["code"] for entry in (tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(catalog.glob("GL*.toml"))) if entry.get("preview")
    )


def tally(
    sites: Sequence[dict], missed: Iterable[str], unavailable: Iterable[str], preview: Iterable[str] = ()
) -> Dict[str, Tuple[int, int]]:
    """(caught, total) per group; unavailable sites are left out of every group.
    With ``preview`` codes, also the in-scope sites of the other rules."""
    preview = frozenset(preview)
    missed, gone = set(missed), set(unavailable)
    out: Dict[str, List[int]] = {}

    def add(group: str, caught: bool) -> None:
        cell = out.setdefault(group, [0, 0])
        cell[0] += caught
        cell[1] += 1

    for s in sites:
        if s["id"] in gone:
            continue
        caught = s["id"] not in missed
        add("all", caught)
        add(f"era {era(int(s['year']))}", caught)
        if s["in_scope"]:
            add("in scope", caught)
            add(f"in scope, {s['expect'].split('|')[0]}", caught)
            if preview and s["expect"].split("|")[0] not in preview:
                add("in scope, default rules", caught)
    return {k: (v[0], v[1]) for k, v in out.items()}


def format_tally(t: Dict[str, Tuple[int, int]], n_projects: int, n_recent: int) -> List[str]:
    def row(name: str) -> str:
        c, n = t.get(name, (0, 0))
        return f"  {name:<28} {c:>3} / {n:<3} {100 * c / n:5.1f}%" if n else f"  {name:<28}   - / 0"

    total = t.get("all", (0, 0))[1]
    lines = [f"{total} sites from {n_projects} projects; {n_recent} fixed in 2020 or later", row("all"), row("in scope")]
    if "in scope, default rules" in t:
        lines.append(row("in scope, default rules"))
    lines += [row(k) for k in sorted(t) if k.startswith("in scope, GL")]
    lines += [row(f"era {name}") for name, _, _ in ERAS]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "-h" in args or "--help" in args:
        print(__doc__)
        return 0
    sites_path = DEFAULT_SITES
    if "--sites" in args:
        sites_path = Path(args[args.index("--sites") + 1])
    else:
        args = ["--sites", str(DEFAULT_SITES), *args]
    sites = tomllib.loads(sites_path.read_text(encoding="utf-8"))["site"]
    for s in sites:
        for key in ("in_scope", "year"):
            if key not in s:
                raise SystemExit(f"error: {sites_path}: site {s.get('id', '?')} has no {key}")
    proc = subprocess.run([sys.executable, str(HERE / "score.py"), "--json", *args], capture_output=True, text=True)
    # score.py exits 2 when some before-file could not be had; its report still stands.
    if proc.returncode not in (0, 2) or not proc.stdout.strip():
        sys.stderr.write(proc.stderr)
        return proc.returncode or 2
    report = json.loads(proc.stdout)
    unavailable = list(report.get("unavailable") or [])
    unavailable_ids = [u["id"] if isinstance(u, dict) else u for u in unavailable]
    t = tally(sites, [m["id"] for m in report["misses"]], unavailable_ids, preview_rules())
    recent = sum(1 for s in sites if int(s["year"]) >= 2020 and s["id"] not in unavailable_ids)
    print("\n".join(format_tally(t, len({s["project"] for s in sites}), recent)))
    if unavailable_ids:
        print(f"unavailable (left out): {', '.join(unavailable_ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
