"""Rewrite fixtures' expected findings, fix outputs and verify verdicts from current behaviour.

Usage: ``python tests/update_fixtures.py [CODE ... | migrate]`` (default: every fixture).
A rule's ``verify/`` scripts are run under torch (``gradlint verify``, as written and
as fixed) to write their ``.verified`` sidecars; without torch they are left as they are.
Review the result with ``git diff fixtures/`` before committing: these files
are the specification the tests hold the rules to.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gradlint import catalog  # noqa: E402
from harness import (  # noqa: E402
    expected_paths,
    fixture_cases,
    migrate_cases,
    migrate_expected_paths,
    migration_report,
    run_fixture,
    run_migration,
    run_verify,
    verified_lines,
    verified_path,
    verify_cases,
)


def main(codes: list) -> None:
    for path in fixture_cases():
        if codes and path.parent.name not in codes:
            continue
        run = run_fixture(path)
        expected, fixed, unsafe = expected_paths(path)
        expected.write_text("".join(line + "\n" for line in run.findings), encoding="utf-8")
        for target, content, base in ((fixed, run.fixed, run.source), (unsafe, run.unsafe_fixed, run.fixed)):
            if content != base:
                target.write_bytes(content.encode("utf-8"))
            elif target.exists():
                target.unlink()
        print(f"{_shown(path)}: {len(run.findings)} findings")
    scripts = [p for p in verify_cases() if not codes or p.parent.parent.name in codes]
    if scripts:
        _update_verified(scripts)
    if not codes or "migrate" in codes:
        known = catalog.load()
        for path in migrate_cases():
            migrated, report = migrate_expected_paths(path)
            missing = sorted(
                {line.split()[1] for line in _lines(report) if line.startswith("fixed ")} - set(known) - {"GL000"}
            )
            if missing:
                # Written for a rule this build lacks: regenerating would drop its part.
                print(f"{_shown(path)}: kept as it is (needs {', '.join(missing)}, not in this build)")
                continue
            result = run_migration(path)
            lines = migration_report(result)
            report.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            original = path.read_bytes().decode("utf-8")
            if result.source != original:
                migrated.write_bytes(result.source.encode("utf-8"))
            elif migrated.exists():
                migrated.unlink()
            print(f"{_shown(path)}: {', '.join(lines) or 'unchanged'}")


def _update_verified(scripts: list) -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        for path in scripts:
            print(f"{_shown(path)}: left as it is (verify runs it under torch, which is not installed)")
        return
    _, items = run_verify(scripts)
    for path, item in zip(scripts, items):
        lines = verified_lines(item)
        verified_path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        verdicts = [line.split(", ")[0].split(" ", 1)[1] for line in lines if line[:1].isdigit()]
        print(f"{_shown(path)}: {', '.join(verdicts) or 'no findings'}")


def _lines(path: Path) -> list:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _shown(path: Path) -> Path:
    return path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path


if __name__ == "__main__":
    main(sys.argv[1:])
