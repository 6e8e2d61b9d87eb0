"""The pytest plugin (entry point ``pytest11: gradlint-guard``).

pytest imports this module in every session of every project where gradlint
is installed, so it imports nothing but the standard library until the guard
is switched on: ``pytest --gradlint-guard[=warn|fail]`` or a
``[tool.gradlint.guard]`` table in the project's pyproject.toml (keys ``mode``
and ``report``). Then :class:`Guard` is registered and torch is imported.

``fail`` makes the session fail (exit status 1) when there are findings; the
tests keep their own outcomes, because several findings (a graph freed
unused) are only known after the test that caused them has finished.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional

import pytest

MODES = ("warn", "fail")
_FLAG = "--gradlint-guard"


def pytest_addoption(parser) -> None:
    group = parser.getgroup("gradlint", "gradlint guard: watch autograd while the tests run")
    group.addoption(
        _FLAG,
        dest="gradlint_guard",
        nargs="?",
        const="warn",
        default=None,
        metavar="warn|fail",
        help="Report gradient-mode waste and corruption seen while the tests run; "
        "=fail makes the session fail on findings (bare flag: warn).",
    )
    group.addoption(
        "--gradlint-guard-report",
        dest="gradlint_guard_report",
        metavar="PATH",
        default=None,
        help="Write the guard's findings as JSON (the shape of `gradlint check --output-format json`, plus the test id).",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args: List[str]) -> None:
    # A bare `--gradlint-guard` means warn; with an optional value argparse
    # would take the next argument (a test path) as the mode.
    for i, arg in enumerate(args):
        if arg == _FLAG:
            args[i] = f"{_FLAG}=warn"


def _project_settings(config) -> Optional[Dict[str, Any]]:
    """``[tool.gradlint.guard]`` of the pyproject.toml at the rootdir; None when there is none."""
    path = os.path.join(str(config.rootpath), "pyproject.toml")
    if not os.path.isfile(path):
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, ValueError):
        # Not the guard's to report: it is loaded in every session, wanted or not.
        return None
    table = data.get("tool", {}).get("gradlint", {}).get("guard")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise pytest.UsageError(f"gradlint guard: [tool.gradlint.guard] in {path} must be a table")
    unknown = sorted(set(table) - {"mode", "report"})
    if unknown:
        raise pytest.UsageError(f"gradlint guard: unknown key(s) in [tool.gradlint.guard]: {', '.join(unknown)}")
    if table.get("mode", "warn") not in MODES:
        raise pytest.UsageError(f"gradlint guard: [tool.gradlint.guard] mode must be one of {', '.join(MODES)}")
    return table


def pytest_configure(config) -> None:
    mode = config.getoption("gradlint_guard")
    if mode is not None and mode not in MODES:
        raise pytest.UsageError(f"{_FLAG}: {mode!r} is not one of {', '.join(MODES)} (write {_FLAG}=fail)")
    report = config.getoption("gradlint_guard_report")
    table = _project_settings(config)
    if mode is None and table is not None:
        mode = table.get("mode", "warn")
    if report is None and table is not None and table.get("report"):
        report = os.path.join(str(config.rootpath), table["report"])
    if mode is None and report is not None:
        mode = "warn"
    if mode is None:
        return
    config.pluginmanager.register(Guard(config, mode, report), "gradlint-guard-session")


class Guard:
    """The hooks of an enabled guard (one per pytest session)."""

    def __init__(self, config, mode: str, report: Optional[str]) -> None:
        from gradlint.guard.monitor import Monitor

        self.config = config
        self.mode = mode
        self.report = report
        self.root = str(config.invocation_params.dir)
        self.monitor = Monitor()
        self.monitor.install()
        self.finished = False

    def pytest_unconfigure(self, config) -> None:
        self.monitor.uninstall()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.monitor.begin_test(item.nodeid)
        try:
            yield
        finally:
            self.monitor.end_test(self._test_site(item))

    def _test_site(self, item):
        from gradlint.guard.report import Site

        path, lineno, _ = item.location
        return Site(os.path.abspath(os.path.join(str(self.config.rootpath), path)), (lineno or 0) + 1)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus) -> None:
        from gradlint.guard.report import write_json

        self.monitor.finish()
        self.finished = True
        if self.report:
            write_json(self.monitor.findings, self.report, self.root, str(self.config.rootpath))
        if self.mode == "fail" and self.monitor.findings and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        from gradlint.guard.report import summary as summarize, terminal_lines

        findings = self.monitor.findings
        terminalreporter.section("gradlint guard")
        for line in terminal_lines(findings, self.root):
            terminalreporter.write_line(line)
        n = len(findings)
        summary = summarize(findings)
        if self.report:
            summary += f"; report written to {self.report}"
        if n and self.mode == "fail":
            summary += "; the session fails (--gradlint-guard=fail)"
        terminalreporter.write_line(summary)
        aside = self.monitor.stepped_aside
        if aside:
            total = sum(aside.values())
            regions = " / ".join(k for k in ("torch.func", "compile", "saved-tensor hooks") if k in aside)
            terminalreporter.write_line(
                f"stepped aside {total} time{'s' if total != 1 else ''}: {regions} regions, not watched"
            )
        for (where, what), count in sorted(self.monitor.notes.items()):
            times = "" if count == 1 else f" ({count} times)"
            terminalreporter.write_line(f"guard-internal: {where}: {what}{times}; swallowed, no test saw it")
