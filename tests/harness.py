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

``python tests/update_fixtures.py`` rewrites them from the current behaviour,
for review with ``git diff``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Tuple

from gradlint.config import Settings, expand
from gradlint.engine import LintSettings, fix_source, lint_source, parse
from gradlint.files import read_source
from gradlint.migrate import MigratedSource, migrate_source, migration_settings
from gradlint.rule import RuleOptions

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MIGRATE_FIXTURES = FIXTURES / "migrate"


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
