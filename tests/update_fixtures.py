"""Rewrite fixtures' expected findings and fix outputs from current behaviour.

Usage: ``python tests/update_fixtures.py [CODE ...]`` (default: every fixture).
Review the result with ``git diff fixtures/`` before committing: these files
are the specification the tests hold the rules to.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import expected_paths, fixture_cases, run_fixture  # noqa: E402


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
        print(f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}: {len(run.findings)} findings")


if __name__ == "__main__":
    main(sys.argv[1:])
