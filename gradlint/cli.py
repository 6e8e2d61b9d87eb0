"""The ``gradlint`` command line.

Exit codes: 0 no findings left, 1 findings left (or, with ``--diff``, fixes
to show), 2 usage or configuration error, or an internal error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import click

from gradlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> List[str]:
        return list(self.commands)  # in definition order, not alphabetical


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="gradlint")
def main() -> None:
    """Find and fix misuse of PyTorch's gradient modes."""


# Set once `check` has written everything it writes (report, fixes, cache): what is
# left for the interpreter is freeing the run's trees, which `run` skips.
_checked = False
# Whether `main` runs as the console script (`run`), which ends the process after a check.
_console = False


def run() -> None:
    """The ``gradlint`` command (console script, ``python -m gradlint``): ``main``, then,
    after a check, the process ends once its output is flushed, without the interpreter
    freeing every tree the run kept (about a second after a large file), as mypy ends.
    Callers of ``main`` in a process that goes on (tests, the flake8 plugin) are not
    concerned; other commands exit as usual (``verify`` stops its fork server at exit)."""
    global _console
    _console = True
    try:
        main()
    except SystemExit as stop:
        if not _checked or not (stop.code is None or isinstance(stop.code, int)):
            raise
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # a closed pipe: the interpreter's own exit reports it as usual
            raise stop from None
        os._exit(stop.code or 0)


def _fail(message: str) -> "click.exceptions.Exit":
    click.echo(f"error: {message}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


def _selectors(values: Tuple[str, ...]) -> Optional[List[str]]:
    from gradlint.config import split_selectors

    return split_selectors(values) if values else None


# reporters.FORMATS and its aliases, spelt out so that `--help` need not import the engine.
OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github", "text")


def _use_color(stream, when: Optional[str] = None) -> bool:
    """``--color`` when given; else https://no-color.org (NO_COLOR set to anything
    but "" turns colours off), then https://force-color.org (FORCE_COLOR set to
    anything but "" turns them on off a terminal, for CI logs), then the terminal."""
    if when is not None and when != "auto":
        return when == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(stream)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# Ruff's --config: a file, or `key = value` TOML fragments over [tool.gradlint].
_config_option = click.option(
    "--config",
    "config_options",
    multiple=True,
    metavar="PATH | KEY=VALUE",
    help="A file to read [tool.gradlint] from instead of the nearest pyproject.toml, or a TOML `key = value` overriding that key of [tool.gradlint] (repeatable).",
)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, metavar="CODES", help="Rules to check (codes or prefixes, comma-separated, or ALL); replaces the configured selection.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to check in addition to the selection.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules not to check.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place (with `-`: print the fixed source on stdout).")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and mark as fixable) fixes that may change behaviour.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing; exit 1 if there is any.")
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    envvar="GRADLINT_OUTPUT_FORMAT",
    show_envvar=True,
    help="How findings are printed [default: full on a terminal, else concise; text = concise].",
)
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of the findings.")
@click.option("--stdin-filename", metavar="PATH", help="With `-` (read source from stdin): the path to report and to match configuration against.")
@_config_option
@click.option("--preview/--no-preview", default=None, help="Also run the preview tier: the rules and the parts of rules that were below the default bar at first sight (`gradlint rules` marks them; their measured precision is in docs/precision.md); same as `preview = true` in [tool.gradlint].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain (2 still means an error).")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when --fix fixed anything, even if nothing remains.")
@click.option("--show-fixes", is_flag=True, help="With --fix: list what was fixed, per file and rule, before the summary.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` comments to silence every finding (merging with those on the line); write nothing else.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), envvar="GRADLINT_OUTPUT_FILE", show_envvar=True, help="Write the report to this file instead of stdout.")
@click.option("--force-exclude", is_flag=True, help="Apply exclude patterns to files named on the command line too (for pre-commit).")
@click.option(
    "--respect-gitignore/--no-respect-gitignore",
    default=None,
    help="Skip (or not) what .gitignore files and .git/info/exclude ignore in directory walks  [default: the respect-gitignore setting, true]",
)
@click.option("--show-files", is_flag=True, help="Print the files that would be checked, one a line, and exit 0.")
@click.option("--show-settings", is_flag=True, help="Print the settings that govern the first file that would be checked, and exit 0.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no progress bar.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    help="Colour the output: auto (on a terminal, unless NO_COLOR is set; or when FORCE_COLOR is set), always, never  [default: auto]",
)
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N", help="Worker processes  [default: one per CPU]")
@click.option("--no-cache", is_flag=True, envvar="GRADLINT_NO_CACHE", help="Neither read nor write the results cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), envvar="GRADLINT_CACHE_DIR", show_envvar=True, help="Where to keep the results cache  [default: .gradlint_cache in the project root]")
@click.option("--guard-report", type=click.Path(dir_okay=False), metavar="PATH", help="Mark findings confirmed by a `pytest --gradlint-guard-report` run; add the ones only it saw.")
@click.version_option(__version__, "--version", prog_name="gradlint")
def check(
    paths: Tuple[str, ...],
    select: Tuple[str, ...],
    extend_select: Tuple[str, ...],
    ignore: Tuple[str, ...],
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    output_format: Optional[str],
    statistics: bool,
    stdin_filename: Optional[str],
    config_options: Tuple[str, ...],
    preview: Optional[bool],
    exit_zero: bool,
    exit_non_zero_on_fix: bool,
    show_fixes: bool,
    add_noqa: bool,
    output_file: Optional[str],
    force_exclude: bool,
    respect_gitignore: Optional[bool],
    show_files: bool,
    show_settings: bool,
    quiet: bool,
    color: Optional[str],
    jobs: Optional[int],
    no_cache: bool,
    cache_dir: Optional[str],
    guard_report: Optional[str],
) -> None:
    """Check PATHS (files or directories; default: .) for gradient-mode misuse.

    `-` as the only path reads the source from stdin (for editors and scripts).
    """
    from gradlint import dataclass_code, lazy_libcst

    lazy_libcst.install()  # before anything imports LibCST: only the parts a check uses
    if dataclass_code.enable():  # before the modules a check imports make their dataclasses
        ctx = click.get_current_context(silent=True)
        if ctx is None:  # no command around this call to undo it at its end
            dataclass_code.disable()
        else:
            ctx.call_on_close(dataclass_code.disable)
    from gradlint import config as config_mod
    from gradlint import reporters
    from gradlint.files import MissingPathError, discover
    from gradlint.runner import Mode

    if output_format is None:
        output_format = "full" if _isatty(sys.stdout) else "concise"
    output_format = reporters.ALIASES.get(output_format, output_format)
    use_stdin = paths == ("-",) or (not paths and stdin_filename is not None)
    if "-" in paths and not use_stdin:
        raise _fail("`-` (read from stdin) cannot be combined with other paths")
    if stdin_filename is not None and not use_stdin:
        raise _fail("--stdin-filename is only used with `-` (reading from stdin)")
    if exit_zero and exit_non_zero_on_fix:
        raise _fail("--exit-zero cannot be used with --exit-non-zero-on-fix")
    if add_noqa and (fix or diff or use_stdin):
        raise _fail("--add-noqa cannot be used with " + ("--fix" if fix else "--diff" if diff else "`-` (stdin)"))
    if statistics and output_format not in ("full", "concise", "json"):
        # As Ruff: the counts have no SARIF or annotation form, and printing text instead would break the reader.
        raise _fail(f"--statistics cannot be printed as {output_format}: use --output-format concise, full or json")

    try:
        config_path, overrides = config_mod.split_config_options(config_options)
        if preview is not None:
            overrides["preview"] = preview
        settings = config_mod.Settings(
            config_path,
            select=_selectors(select),
            extend_select=_selectors(extend_select) or [],
            ignore=_selectors(ignore) or [],
            overrides=overrides,
            respect_gitignore=respect_gitignore,
        )
        files = [] if use_stdin else discover(list(paths) or ["."], settings, force_exclude=force_exclude, missing_ok=True)
        if show_files or show_settings:
            if use_stdin:
                files = [Path(stdin_filename)] if stdin_filename is not None else []
            _show(files, settings, show_settings)
        _warn_missing(files, settings)
    except (config_mod.ConfigError, MissingPathError) as exc:
        raise _fail(str(exc))
    if not use_stdin and not files:
        # Ruff's warning; "All checks passed!" would claim a check that never happened.
        click.echo("warning: No Python files found under the given path(s)", err=True)
    if add_noqa:
        _add_noqa(files, settings, quiet, jobs)

    # Reporters that show a fix need its text edits; `full` also quotes the source.
    mode = Mode(
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        diff=diff,
        edits=output_format in ("full", "json", "sarif") and not statistics,
        source=output_format == "full" and not statistics,
    )
    # With `--fix -` stdout carries the fixed source, so the findings go to stderr.
    to_stderr = use_stdin and fix and not diff and output_file is None
    info = reporters.RunInfo(
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        quiet=quiet,
        # A report file is data for other tools: never coloured.
        color=output_file is None and _use_color(sys.stderr if to_stderr else sys.stdout, color),
        cwd=os.getcwd(),
        show_fixes=show_fixes,
        # No file to check: the report says nothing rather than "All checks passed!".
        no_files=not use_stdin and not files,
    )
    try:
        if use_stdin:
            reports = _check_stdin(stdin_filename, settings, mode, force_exclude)
        else:
            reports = _check_files(files, settings, mode, quiet, jobs, _cache(settings, no_cache, cache_dir))
    except config_mod.ConfigError as exc:  # a broken pyproject.toml found below the working directory
        raise _fail(str(exc))
    except KeyboardInterrupt:
        # Workers finish the file they are on (fixes are written whole or not at
        # all); nothing is printed but this line.
        click.echo("error: interrupted", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    if guard_report is not None:
        reports = _cross_check(reports, guard_report, mode)
    exits = _Exits(exit_zero, exit_non_zero_on_fix)
    global _checked
    try:
        _finish(reports, mode, info, output_format, statistics, to_stderr, output_file, exits)
    finally:
        _checked = True


def _show(files: List[Path], settings, show_settings: bool) -> None:
    """--show-files, --show-settings: what a run would check, and with what (as Ruff's)."""
    from gradlint.runner import display_path

    if not show_settings:
        for path in files:
            click.echo(display_path(path))
        raise click.exceptions.Exit(EXIT_CLEAN)
    if not files:
        raise _fail("--show-settings: no file to show the settings of under the given path(s)")
    click.echo(_settings_text(files[0], settings), nl=False)
    raise click.exceptions.Exit(EXIT_CLEAN)


def _settings_text(path: Path, settings) -> str:
    import json

    from gradlint import config as config_mod
    from gradlint.runner import display_path

    cfg = settings.config_for(path)
    codes, options = settings.codes_for(path)
    selection = settings.selection(cfg)

    def toml(value) -> str:  # lists, strings and booleans, as TOML writes them
        return "true" if value is True else "false" if value is False else json.dumps(value)

    ignored = {pattern: sorted(c) for pattern, c in selection.per_file_ignores}
    lines = [
        f"Resolved settings for: {display_path(path)}",
        f"Settings path: {cfg.source if cfg.source is not None else 'none (the defaults)'}",
        f"Project root: {cfg.root}",
        "",
        "# The rules checked in this file (after per-file-ignores)",
        f"select = {toml(sorted(codes))}",
        f"exclude = {toml(config_mod.excludes(cfg))}",
        "per-file-ignores = {" + ", ".join(f"{toml(p)} = {toml(c)}" for p, c in ignored.items()) + "}",
        f"fix-grad-guard = {toml(options.fix_grad_guard)}",
        f"respect-gitignore = {toml(settings.respects_gitignore(path.parent))}",
    ]
    return "\n".join(lines) + "\n"


def _warn_missing(files, settings) -> None:
    """A named path that does not exist is GL000 when reading it fails (the run goes
    on, exit 1); where GL000 is not selected for it, Ruff's warning instead."""
    from gradlint.catalog import PARSE_ERROR

    for path in files:
        if not os.path.lexists(path) and PARSE_ERROR not in settings.codes_for(path)[0]:
            click.echo(f"warning: {path}: No such file or directory", err=True)


def _add_noqa(files, settings, quiet: bool, jobs: Optional[int]) -> None:
    from gradlint.add_noqa import add_noqa_paths
    from gradlint.parallel import cpu_count
    from gradlint.session import Session

    run = add_noqa_paths(files, Session(settings).indexed(files, jobs=jobs or cpu_count()))
    for message in run.errors:
        click.echo(f"error: {message}", err=True)
    for where in run.unplaced:
        click.echo(f"warning: {where}: no `# noqa` comment can silence this finding: no line of its logical line can take a comment", err=True)
    if run.added and not quiet:
        click.echo(f"Added {run.added} noqa directive{'s' if run.added != 1 else ''}.", err=True)
    if run.unplaced and not quiet:
        n = len(run.unplaced)
        click.echo(f"{n} finding{'s' if n != 1 else ''} could not be silenced (listed above).", err=True)
    raise click.exceptions.Exit(EXIT_ERROR if run.errors else EXIT_CLEAN)


class _Exits:
    """--exit-zero and --exit-non-zero-on-fix, as Ruff reads them."""

    def __init__(self, exit_zero: bool = False, non_zero_on_fix: bool = False) -> None:
        self.exit_zero = exit_zero
        self.non_zero_on_fix = non_zero_on_fix

    def code(self, remaining: bool, fixed: bool) -> int:
        if self.exit_zero:
            return EXIT_CLEAN
        if remaining or (self.non_zero_on_fix and fixed):
            return EXIT_FINDINGS
        return EXIT_CLEAN


def _emit(text: str, output_file: Optional[str], err: bool, color: bool) -> None:
    if output_file is None:
        click.echo(text, nl=False, err=err, color=color)
        return
    try:
        target = Path(output_file)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(f"{output_file}: cannot write: {exc.strerror or exc}")


def _cross_check(reports, guard_report: str, mode):
    from gradlint.guard.report import GuardReportError, cross_check, load

    try:
        return cross_check(reports, load(guard_report), read_sources=mode.source,
                           warn=lambda message: click.echo(f"warning: {message}", err=True))
    except GuardReportError as exc:
        raise _fail(str(exc))


def _check_files(files, settings, mode, quiet: bool, jobs: Optional[int], cache):
    from gradlint import progress
    from gradlint.scheduler import check_paths
    from gradlint.session import Session

    session = Session(settings, cache=cache)  # its index is built by check_paths, over `files`
    # The console script frees nothing at its end (`run`): nor after the last file.
    if not progress.wanted(len(files), sys.stderr, quiet):
        return check_paths(files, session, mode, jobs=jobs, last_collection=not _console)
    bar = progress.Progress(len(files), sys.stderr)
    try:
        return check_paths(files, session, mode, on_file_done=bar.advance, jobs=jobs, last_collection=not _console)
    finally:
        bar.close()


def _cache(settings, no_cache: bool, cache_dir: Optional[str]):
    if no_cache:
        return None
    from gradlint.cache import Cache, default_directory

    return Cache(Path(cache_dir) if cache_dir else default_directory(settings.project.root))


def _check_stdin(stdin_filename, settings, mode, force_exclude: bool):
    """`gradlint check -`: the source from stdin, checked as the file --stdin-filename names.

    With --fix the fixed source (or the input, unchanged) goes to stdout.
    """
    from gradlint.files import is_excluded
    from gradlint.runner import FileReport, check_stdin, display_path
    from gradlint.session import Session

    data = sys.stdin.buffer.read()
    path = Path(stdin_filename) if stdin_filename is not None else Path("-")
    display = display_path(path) if stdin_filename is not None else "-"
    if force_exclude and stdin_filename is not None and is_excluded(path, settings):
        # Excluded: an editor fixing on save must get its text back untouched.
        report, fixed = FileReport(display), data
    else:
        # The session's index is built by check_stdin: the project of `path`, with the text read.
        report, fixed = check_stdin(data, path, display, Session(settings), mode)
    if mode.fix and not mode.diff:
        sys.stdout.flush()
        sys.stdout.buffer.write(fixed)
        sys.stdout.buffer.flush()
    return [report]


def _finish(
    reports, mode, info, output_format: str, statistics: bool, to_stderr: bool = False,
    output_file: Optional[str] = None, exits: Optional[_Exits] = None,
) -> None:
    """Print errors, then the report (or the diff); exit with the run's status."""
    from gradlint import reporters

    for report in reports:
        for message in report.errors:
            click.echo(f"error: {report.path}: {message}", err=True)
        if not info.quiet:
            for message in getattr(report, "notes", ()):
                click.echo(f"note: {report.path}: {message}", err=True)
    internal = any(r.internal_error for r in reports)
    exits = exits or _Exits()

    if mode.diff:
        diffs = [r.diff for r in reports if r.diff]
        _emit("".join(diffs), output_file, False, False)
        if not info.quiet:
            n = sum(sum(r.fixed.values()) for r in reports)
            # stderr, so that stdout is a patch that ``git apply`` takes as it is
            click.echo(f"Would fix {n} problem{'s' if n != 1 else ''}." if n else "No fixes to apply.", err=True)
        code = EXIT_ERROR if internal else exits.code(bool(diffs), False)
        raise click.exceptions.Exit(code)

    if statistics:
        from gradlint.reporters import statistics as stats

        text = stats.render_json(reports, info) if output_format == "json" else stats.render(reports, info)
    else:
        text = reporters.get(output_format)(reports, info)
    _emit(text, output_file, to_stderr, info.color)
    if internal:
        raise click.exceptions.Exit(EXIT_ERROR)
    remaining = any(r.diagnostics for r in reports)
    raise click.exceptions.Exit(exits.code(remaining, any(r.fixed for r in reports)))


@main.command("migrate")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--diff", is_flag=True, help="Print the migration as a unified diff; write nothing; exit 1 if anything would change.")
@click.option("--check", "check_only", is_flag=True, help="Print the files that would change; write nothing; exit 1 if any.")
@click.option("--select", multiple=True, metavar="CODES", help="Migrations to apply (codes or prefixes, comma-separated); default: all.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Migrations not to apply.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply the migrations whose fixes may change behaviour.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_config_option
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N", help="Worker processes  [default: one per CPU]")
def migrate_command(
    paths: Tuple[str, ...],
    diff: bool,
    check_only: bool,
    select: Tuple[str, ...],
    ignore: Tuple[str, ...],
    unsafe_fixes: bool,
    output_format: str,
    config_options: Tuple[str, ...],
    jobs: Optional[int],
) -> None:
    """Move legacy (PyTorch <= 0.3) autograd code in PATHS (default: .) to today's PyTorch."""
    from gradlint import config as config_mod
    from gradlint import migrate, progress
    from gradlint.files import MissingPathError, discover
    from gradlint.reporters import migration as report

    try:
        config_path, overrides = config_mod.split_config_options(config_options)
        settings = migrate.migration_settings(config_path, _selectors(select) or [], _selectors(ignore) or [], overrides)
        files = discover(list(paths) or ["."], settings)
        mode = migrate.MigrateMode(write=not (diff or check_only), diff=diff, unsafe_fixes=unsafe_fixes)
        # The progress line of `check`: on a terminal, for many files, erased when done.
        bar = progress.Progress(len(files), sys.stderr) if progress.wanted(len(files), sys.stderr) else None
        try:
            run = migrate.migrate_paths(files, settings, mode, jobs=jobs, on_file_done=bar.advance if bar else None)
        finally:
            if bar is not None:
                bar.close()
    except (config_mod.ConfigError, MissingPathError) as exc:
        raise _fail(str(exc))
    except KeyboardInterrupt:
        # Workers finish the file they are on (each is written whole or not at all).
        click.echo("error: interrupted", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED)

    for f in run.files:
        for message in f.errors:
            click.echo(f"error: {f.path}: {message}", err=True)
    if output_format == "json":
        click.echo(report.render_json(run), nl=False)
    elif diff:
        click.echo("".join(f.diff for f in run.changed if f.diff), nl=False)
        if not check_only:  # stderr, so that stdout is a patch that ``git apply`` takes as it is
            click.echo(report.render_summary(run), nl=False, err=True)
    elif check_only:
        click.echo(report.render_names(run), nl=False)
        for f in run.skipped:
            click.echo(f"skipped: {f.path}: {f.skipped}", err=True)
    else:
        click.echo(report.render_summary(run), nl=False)
    if run.internal_error:
        raise click.exceptions.Exit(EXIT_ERROR)
    if mode.write:
        raise click.exceptions.Exit(EXIT_FINDINGS if run.left or run.skipped else EXIT_CLEAN)
    raise click.exceptions.Exit(EXIT_FINDINGS if run.changed else EXIT_CLEAN)


@main.command()
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules(output_format: str) -> None:
    """List every rule: code, name, default, fix safety, summary."""
    from gradlint import catalog

    docs = list(catalog.load().values())
    if output_format == "json":
        import json

        click.echo(
            json.dumps(
                [
                    {
                        "code": d.code,
                        "name": d.name,
                        "summary": d.summary,
                        "default": d.default,
                        "preview": d.preview,
                        "fix": d.fix,
                        "url": d.url,
                    }
                    for d in docs
                ],
                indent=2,
            )
        )
        return
    width = max(len(d.name) for d in docs)
    click.echo(f"{'CODE':<6}  {'NAME':<{width}}  {'DEFAULT':<7}  {'FIX':<6}  SUMMARY")
    for d in docs:
        default = "preview" if d.preview else "on" if d.default else "off"
        summary = d.summary + (" [weak part in preview]" if d.preview_what and not d.preview else "")
        click.echo(f"{d.code:<6}  {d.name:<{width}}  {default:<7}  {d.fix:<6}  {summary}")


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Explain RULE (a code such as GL001, or a name such as volatile-flag)."""
    _explain([rule], "text")


@main.command("rule")
@click.argument("rule", required=False)
@click.option("--all", "all_rules", is_flag=True, help="Explain every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule_command(rule: Optional[str], all_rules: bool, output_format: str) -> None:
    """Explain RULE, or every rule with --all (Ruff's name for `explain`)."""
    from gradlint import catalog

    if (rule is None) == (not all_rules):
        raise _fail("give either a rule (a code such as GL001, or a name) or --all")
    _explain(list(catalog.load()) if all_rules or rule is None else [rule], output_format, as_list=all_rules)


def _explain(rules: List[str], output_format: str, as_list: bool = False) -> None:
    from gradlint import catalog
    from gradlint.docs import rule_markdown

    docs = []
    for name in rules:
        doc = catalog.get(name)
        if doc is None:
            raise _fail(f"unknown rule {name!r} (see `gradlint rules`)")
        docs.append(doc)
    if output_format == "json":
        import json

        rows = [
            {"code": d.code, "name": d.name, "summary": d.summary, "default": d.default, "fix": d.fix, "url": d.url, "explanation": rule_markdown(d)}
            for d in docs
        ]
        click.echo(json.dumps(rows if as_list else rows[0], indent=2))
        return
    click.echo("\n".join(rule_markdown(d) for d in docs))


@main.command()
def server() -> None:
    """Run the Language Server for editors (LSP over stdio): diagnostics and quick fixes."""
    try:
        from gradlint.server import serve
    except ImportError as exc:
        raise _fail(f"`gradlint server` needs pygls ({exc}); install it with: pip install 'pygls>=2,<3' (in a clone of gradlint: pip install '.[lsp]')")
    serve()


@main.command()
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--probes", is_flag=True, help="Run every rule's catalog probe on the installed torch instead of files.")
@click.option("--select", multiple=True, metavar="CODES", help="Rules to verify (codes or prefixes, comma-separated, or ALL).")
@click.option("--unsafe-fixes", is_flag=True, help="Apply unsafe fixes too in the fixed copy.")
@click.option("--timeout", type=float, default=60.0, show_default=True, help="Wall-clock seconds per run.")
@click.option("--memory-limit", default="4GiB", show_default=True, help="Memory per run (e.g. 512MiB; 0 for none).")
@click.option("--seed", type=int, help="Seed random, torch and numpy with N in both runs.")
@_config_option
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-j", "--jobs", type=int, help="Runs at a time (default: CPUs, at most 4).")
@click.option("--entry", metavar="MODULE:FUNCTION", help="Import each file, then call FUNCTION() (module or path.py) to reach code nothing calls at import.")
@click.option("--driver", metavar="DRIVER.py", help="Run DRIVER.py, which imports the files and calls them, instead of running each file.")
@click.option("--preview/--no-preview", default=None, help="Verify the preview tier's findings too; same as `preview = true` in [tool.gradlint].")
def verify(**options: object) -> None:
    """Run FILES as written and as fixed under torch (each in a sandboxed
    subprocess) and show whether each finding and fix behaves as claimed."""
    from gradlint.config import ConfigError, split_config_options
    from gradlint.verify import command

    options["select"] = _selectors(options["select"])  # type: ignore[arg-type]
    try:
        options["config_path"], options["config_overrides"] = split_config_options(options.pop("config_options"))  # type: ignore[arg-type]
    except ConfigError as exc:
        raise _fail(str(exc))
    preview = options.pop("preview")
    if preview is not None:
        options["config_overrides"]["preview"] = preview  # type: ignore[index]
    try:
        code = command.run(echo=lambda text: click.echo(text, nl=False), **options)  # type: ignore[arg-type]
    except command.UsageError as exc:
        raise _fail(str(exc))
    raise click.exceptions.Exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
