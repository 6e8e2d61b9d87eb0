"""The ``gradlint`` command line.

Exit codes: 0 no findings left, 1 findings left (or, with ``--diff``, fixes
to show), 2 usage or configuration error, or an internal error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

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


def _fail(message: str) -> "click.exceptions.Exit":
    click.echo(f"error: {message}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


def _selectors(values: Tuple[str, ...]) -> Optional[List[str]]:
    from gradlint.config import split_selectors

    return split_selectors(values) if values else None


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, metavar="CODES", help="Rules to check (codes or prefixes, comma-separated, or ALL); replaces the configured selection.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to check in addition to the selection.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules not to check.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and mark as fixable) fixes that may change behaviour.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing; exit 1 if there is any.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Read [tool.gradlint] from this file instead of the nearest pyproject.toml.")
@click.option("--force-exclude", is_flag=True, help="Apply exclude patterns to files named on the command line too (for pre-commit).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N", help="Worker processes  [default: one per CPU]")
@click.option("--no-cache", is_flag=True, envvar="GRADLINT_NO_CACHE", help="Neither read nor write the results cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), envvar="GRADLINT_CACHE_DIR", show_envvar=True, help="Where to keep the results cache  [default: .gradlint_cache in the project root]")
@click.version_option(__version__, "--version", prog_name="gradlint")
def check(
    paths: Tuple[str, ...],
    select: Tuple[str, ...],
    extend_select: Tuple[str, ...],
    ignore: Tuple[str, ...],
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    output_format: str,
    config_path: Optional[str],
    force_exclude: bool,
    quiet: bool,
    jobs: Optional[int],
    no_cache: bool,
    cache_dir: Optional[str],
) -> None:
    """Check PATHS (files or directories; default: .) for gradient-mode misuse."""
    from gradlint import config as config_mod
    from gradlint import reporters
    from gradlint.files import MissingPathError, discover
    from gradlint.runner import Mode, check_paths

    try:
        settings = config_mod.Settings(
            config_path,
            select=_selectors(select),
            extend_select=_selectors(extend_select) or [],
            ignore=_selectors(ignore) or [],
        )
        files = discover(list(paths) or ["."], settings, force_exclude=force_exclude)
    except (config_mod.ConfigError, MissingPathError) as exc:
        raise _fail(str(exc))

    mode = Mode(fix=fix, unsafe_fixes=unsafe_fixes, diff=diff, edits=output_format == "json")
    try:
        reports = check_paths(files, settings, mode, jobs=jobs, cache=_cache(settings, no_cache, cache_dir))
    except config_mod.ConfigError as exc:  # a broken pyproject.toml found below the working directory
        raise _fail(str(exc))
    except KeyboardInterrupt:
        # Workers finish the file they are on (fixes are written whole or not at
        # all); nothing is printed but this line.
        click.echo("error: interrupted", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED)

    for report in reports:
        for message in report.errors:
            click.echo(f"error: {report.path}: {message}", err=True)
    internal = any(r.internal_error for r in reports)

    if diff:
        diffs = [r.diff for r in reports if r.diff]
        for text in diffs:
            click.echo(text, nl=False)
        if not quiet:
            n = sum(sum(r.fixed.values()) for r in reports)
            # stderr, so that stdout is a patch that ``git apply`` takes as it is
            click.echo(f"Would fix {n} problem{'s' if n != 1 else ''}." if n else "No fixes to apply.", err=True)
        code = EXIT_ERROR if internal else (EXIT_FINDINGS if diffs else EXIT_CLEAN)
        raise click.exceptions.Exit(code)

    info = reporters.RunInfo(fix=fix, unsafe_fixes=unsafe_fixes, quiet=quiet)
    click.echo(reporters.get(output_format)(reports, info), nl=False)
    if internal:
        raise click.exceptions.Exit(EXIT_ERROR)
    remaining = any(r.diagnostics for r in reports)
    raise click.exceptions.Exit(EXIT_FINDINGS if remaining else EXIT_CLEAN)


def _cache(settings, no_cache: bool, cache_dir: Optional[str]):
    if no_cache:
        return None
    from gradlint.cache import Cache, default_directory

    return Cache(Path(cache_dir) if cache_dir else default_directory(settings.project.root))


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
        click.echo(f"{d.code:<6}  {d.name:<{width}}  {'on' if d.default else 'off':<7}  {d.fix:<6}  {d.summary}")


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Explain RULE (a code such as GL001, or a name such as volatile-flag)."""
    from gradlint import catalog
    from gradlint.docs import rule_markdown

    doc = catalog.get(rule)
    if doc is None:
        raise _fail(f"unknown rule {rule!r} (see `gradlint rules`)")
    click.echo(rule_markdown(doc))


if __name__ == "__main__":  # pragma: no cover
    main()
