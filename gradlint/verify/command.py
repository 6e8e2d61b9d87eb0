"""What ``gradlint verify`` does with its options: check them, run, print, and return the exit code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence

from gradlint import catalog
from gradlint.verify import INSTALL_HINT, sandbox, torch_available

if TYPE_CHECKING:
    from gradlint.config import Settings
    from gradlint.verify import reach

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(i?B?)?\s*$", re.IGNORECASE)


class UsageError(Exception):
    """A problem with the command line or the environment: one line, exit 2."""


def parse_size(text: str) -> Optional[int]:
    """``4GiB``, ``512M``, ``1.5G``, ``1000000`` -> bytes; ``0``/``none`` -> no limit."""
    if text.strip().lower() in ("0", "none", "off"):
        return None
    m = _SIZE.match(text)
    if not m:
        raise UsageError(f"--memory-limit: {text!r} is not a size such as 4GiB or 512MiB")
    power = "KMGT".find(m.group(2).upper()) + 1 if m.group(2) else 0
    return int(float(m.group(1)) * (1024**power))


def run(
    files: Sequence[str],
    probes: bool,
    select: Optional[List[str]],
    unsafe_fixes: bool,
    timeout: float,
    memory_limit: str,
    seed: Optional[int],
    config_path: Optional[str],
    output_format: str,
    jobs: Optional[int],
    echo: Callable[[str], None],
    config_overrides: Optional[Dict[str, Any]] = None,
    entry: Optional[str] = None,
    driver: Optional[str] = None,
) -> int:
    from gradlint.config import ConfigError

    if probes and files:
        raise UsageError("give either --probes or files to run, not both")
    if not probes and not files:
        raise UsageError("nothing to verify: name the files to run, or use --probes")
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if probes and (entry or driver):
        raise UsageError("--entry and --driver run files, not --probes")
    if entry and driver:
        raise UsageError("give either --entry or --driver, not both")
    from gradlint.verify import reach

    try:
        parsed_entry = reach.parse_entry(entry) if entry else None
    except reach.EntryError as exc:
        raise UsageError(str(exc)) from None
    if parsed_entry is not None and parsed_entry.is_path and not Path(parsed_entry.module).is_file():
        raise UsageError(f"--entry: {parsed_entry.module}: No such file")
    if driver is not None and not Path(driver).is_file():
        raise UsageError(f"--driver: {driver}: No such file")
    limits = sandbox.Limits(timeout=timeout, memory=parse_size(memory_limit))
    workers = jobs or sandbox.default_workers()
    try:
        if probes:
            docs = _probe_docs(select)
            _need_torch()
            return _probes(docs, limits, workers, output_format, echo)
        paths = _paths(files)
        from gradlint.config import Settings

        settings = Settings(config_path, select=select, overrides=config_overrides)
        _need_torch()
        return _files(paths, settings, unsafe_fixes, limits, seed, workers, output_format, echo, parsed_entry, driver)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _need_torch() -> None:
    if not torch_available():
        raise UsageError(f"`gradlint verify` runs code under torch, which is not installed: {INSTALL_HINT}")


def _probe_docs(select: Optional[List[str]]) -> List[catalog.RuleDoc]:
    from gradlint.config import expand

    docs = list(catalog.load().values())
    if select:
        chosen = expand(select)
        docs = [d for d in docs if d.code in chosen]
    docs = [d for d in docs if d.probe is not None]
    if not docs:
        raise UsageError("no selected rule has a probe")
    return docs


def _paths(files: Sequence[str]) -> List[Path]:
    out = []
    for raw in files:
        p = Path(raw)
        if not p.exists():
            raise UsageError(f"{raw}: No such file or directory")
        if p.is_dir():
            raise UsageError(f"{raw}: is a directory; verify runs only files named one by one")
        out.append(p)
    return out


def _probes(
    docs: Sequence[catalog.RuleDoc], limits: sandbox.Limits, workers: int, output_format: str, echo: Callable[[str], None]
) -> int:
    from gradlint.verify import report
    from gradlint.verify.probes import CONFIRMED, ProbeResult, run_probes

    text = output_format != "json"

    def done(r: ProbeResult) -> None:
        if r.error and r.error.startswith("cannot import torch"):
            raise UsageError(f"torch does not work in the sandbox: {r.error}")
        if text:  # each probe as it finishes: a run of every probe takes half a minute
            echo(report.probe_text(r))

    results = run_probes(docs, limits, workers, done)
    echo(report.probes_summary(results) if text else report.probes_json(results))
    return EXIT_OK if all(r.verdict == CONFIRMED for r in results) else EXIT_FAILED


def _files(
    paths: Sequence[Path],
    settings: "Settings",
    unsafe_fixes: bool,
    limits: sandbox.Limits,
    seed: Optional[int],
    workers: int,
    output_format: str,
    echo: Callable[[str], None],
    entry: Optional["reach.Entry"] = None,
    driver: Optional[str] = None,
) -> int:
    from gradlint.verify import report
    from gradlint.verify.scripts import Options, SetupError, verify_files

    options = Options(limits=limits, seed=seed, unsafe_fixes=unsafe_fixes, workers=workers, entry=entry, driver=driver)
    text = output_format != "json"
    # Each file as it finishes (runs take seconds each); JSON is one document, printed at the end.
    on_result = (lambda fv: echo(report.file_text(fv))) if text else None
    try:
        results = verify_files(paths, settings, options, on_result)
    except SetupError as exc:
        raise UsageError(f"torch does not work in the sandbox: {exc}") from None
    echo(report.files_summary(results) if text else report.files_json(results))
    return EXIT_OK if all(fv.ok for fv in results) else EXIT_FAILED
