"""Shared test helpers: lint or fix a snippet, and read the fixture files.

Fixture layout (``fixtures/<CODE>/<case>.py``):

- ``<case>.expected``: one ``row:column CODE`` line per finding that
  ``gradlint check`` reports for the file (1-based, in output order);
- ``<case>.fixed.py``: the file after ``gradlint check --fix`` (absent when
  ``--fix`` changes nothing);
- ``<case>.unsafe.py``: after ``--fix --unsafe-fixes``, when that differs from
  ``--fix``.

``fixtures/migrate/<case>.py`` are legacy files for ``gradlint migrate``; beside
each, ``<case>.migrated.py`` is the file after migration (absent when it is
left as it is) and ``<case>.report`` what the summary says about it: one
``fixed CODE N`` line per code, ``left row:column CODE`` per finding left for
a human (positions in the migrated file), ``skipped`` when it is left untouched.

``fixtures/<CODE>/verify/<case>.py`` are runnable scripts for ``gradlint verify``
(self-contained, tiny synthetic data, CPU) in which the rule's finding shows what
its ``[[verify]]`` claims say; beside each, ``<case>.verified`` is what verify
reports for it, run as written and as fixed with ``--unsafe-fixes``
(``verified_lines``): how each run ended, and per finding its position, code,
verdict and bytes measured, and its fix's safety, verdict and memory figures.

``python tests/update_fixtures.py`` rewrites them from the current behaviour,
for review with ``git diff``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from gradlint.config import Settings, expand
from gradlint.engine import LintSettings, fix_source, lint_source, parse
from gradlint.files import read_source
from gradlint.migrate import MigratedSource, migrate_source, migration_settings
from gradlint.rule import RuleOptions

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MIGRATE_FIXTURES = FIXTURES / "migrate"
# Every fixture input and regression case as written (not the fixed outputs):
# the corpus the fix-loop tests run each rule's fixes over.
FIX_CORPUS = sorted(
    p
    for base in (FIXTURES, ROOT / "tests" / "cases")
    for p in base.rglob("*.py")
    if not p.name.endswith((".fixed.py", ".unsafe.py"))
)


def settings_for(select: Iterable[str], options: RuleOptions = RuleOptions()) -> LintSettings:
    return LintSettings(expand(select), options)


def lint(code: str, select: Sequence[str] = ("ALL",), options: RuleOptions = RuleOptions()) -> List[Tuple[int, int, str]]:
    """Findings as (row, 1-based column, code)."""
    source = textwrap.dedent(code)
    result = lint_source(source, "snippet.py", settings_for(select, options))
    return [(f.start[0], f.start[1] + 1, f.code) for f in result.findings]


def messages(code: str, select: Sequence[str] = ("ALL",), options: RuleOptions = RuleOptions()) -> List[str]:
    result = lint_source(textwrap.dedent(code), "snippet.py", settings_for(select, options))
    return [f.message for f in result.findings]


def fix(code: str, select: Sequence[str] = ("ALL",), unsafe: bool = False, options: RuleOptions = RuleOptions()) -> str:
    """The snippet after fixing; asserts the result parses and a second fix changes nothing."""
    settings = settings_for(select, options)
    result = fix_source(textwrap.dedent(code), "snippet.py", settings, unsafe=unsafe)
    assert not result.problems, result.problems
    parse(result.source)
    again = fix_source(result.source, "snippet.py", settings, unsafe=unsafe)
    assert again.source == result.source, "fix is not idempotent"
    return result.source


@dataclass
class FixtureRun:
    findings: List[str]
    fixed: str
    unsafe_fixed: str
    source: str


def fixture_cases() -> List[Path]:
    return sorted(p for p in FIXTURES.glob("GL*/*.py") if not p.name.endswith((".fixed.py", ".unsafe.py")))


def run_fixture(path: Path) -> FixtureRun:
    """What ``gradlint check`` (with the file's own configuration) says and does to ``path``."""
    settings = Settings(cwd=ROOT)
    codes, options = settings.codes_for(path)
    lint_settings = LintSettings(codes, options)
    source = read_source(path).text
    findings = [f"{f.start[0]}:{f.start[1] + 1} {f.code}" for f in lint_source(source, str(path), lint_settings).findings]
    fixed = fix_source(source, str(path), lint_settings)
    unsafe = fix_source(source, str(path), lint_settings, unsafe=True)
    assert not fixed.problems and not unsafe.problems, (fixed.problems, unsafe.problems)
    return FixtureRun(findings, fixed.source, unsafe.source, source)


def expected_paths(path: Path) -> Tuple[Path, Path, Path]:
    stem = path.with_suffix("")
    return (
        stem.with_name(stem.name + ".expected"),
        stem.with_name(stem.name + ".fixed.py"),
        stem.with_name(stem.name + ".unsafe.py"),
    )


def verify_cases() -> List[Path]:
    return sorted(FIXTURES.glob("GL*/verify/*.py"))


def verified_path(path: Path) -> Path:
    return path.with_suffix(".verified")


def run_verify(paths: Sequence[Path]) -> Tuple[list, List[Dict[str, Any]]]:
    """Every script, as written and as fixed (unsafe fixes included, as
    ``gradlint verify --unsafe-fixes -j 2`` runs them), in one batch: the results
    and each one's JSON report, in the order of ``paths``. Each script is checked
    with its own folder's configuration (``fixtures/GL203/pyproject.toml`` switches
    GL203 on)."""
    import json
    import os

    from gradlint.verify import report
    from gradlint.verify.scripts import Options, verify_files

    # Two runs at a time on two cores: one thread each. torch's default (a thread
    # per core) makes each run wait for the other's cores.
    threads = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        results = verify_files(list(paths), Settings(cwd=ROOT), Options(workers=2, unsafe_fixes=True))
    finally:
        if threads is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = threads
    return results, json.loads(report.files_json(results))["files"]


# The measured figures of a finding (JSON key, what the sidecar calls it).
_MEASURED = (("saved_bytes", "saved for backward"), ("retained_bytes", "kept alive after the loop"))


def verified_lines(item: Dict[str, Any]) -> List[str]:
    """A script's ``.verified`` sidecar, from its JSON report: what is stable from
    run to run (not the timings, nor observed values such as a loss or a sum)."""
    lines = []
    for key, label in (("as_written", "as written"), ("as_fixed", "as fixed")):
        run = item["runs"].get(key)
        lines.append(f"{label}: {run['status'] if run else 'not run'}")
    lines.append(f"fixes applied: {item['fixes_applied']}")
    for what in ("error", "note"):
        if item.get(what):
            lines.append(f"{what}: {item[what]}")
    for f in item["findings"]:
        line = f"{f['location']['row']}:{f['location']['column']} {f['code']} {f['verdict']}"
        line += "".join(f", {label} {f[key]} B" for key, label in _MEASURED if f.get(key) is not None)
        lines.append(line)
        fix = f["fix"]
        if fix:
            state = fix["applicability"] + ("" if fix["applied"] else ", not applied")
            line = f"  fix ({state}): {fix['verdict']}"
            line += "".join(f", {m['what']} {m['as_written']} B -> {m['as_fixed']} B" for m in fix["memory"])
            lines.append(line)
    return lines


def verified_summary(lines: Iterable[str]) -> Dict[str, int]:
    """The counts a report's summary gives, from sidecar lines: each finding's
    verdict, and ``fix <verdict>`` for each fix applied."""
    counts: Dict[str, int] = {}
    for line in lines:
        if line[:1].isdigit():
            key = line.split(", ")[0].split(" ", 2)[2]
        elif line.startswith("  fix (") and ", not applied)" not in line:
            key = "fix " + line.split("): ", 1)[1].split(", ")[0]
            if key == "fix None":
                continue
        else:
            continue
        counts[key] = counts.get(key, 0) + 1
    return counts


def migrate_cases() -> List[Path]:
    return sorted(p for p in MIGRATE_FIXTURES.glob("*.py") if not p.name.endswith(".migrated.py"))


def run_migration(path: Path, select: Sequence[str] = ()) -> MigratedSource:
    """What ``gradlint migrate`` (with the file's own configuration) makes of ``path``."""
    codes, options = migration_settings(select=select).codes_for(path)
    return migrate_source(read_source(path).text, str(path), LintSettings(codes, options))


def migration_report(result: MigratedSource) -> List[str]:
    lines = [f"fixed {code} {n}" for code, n in sorted(result.fixed.items())]
    lines += [f"left {f.start[0]}:{f.start[1] + 1} {f.code}" for f in result.remaining]
    if result.skipped is not None:
        lines.append("skipped")
    return lines


def migrate_expected_paths(path: Path) -> Tuple[Path, Path]:
    stem = path.with_suffix("")
    return stem.with_name(stem.name + ".migrated.py"), stem.with_name(stem.name + ".report")
