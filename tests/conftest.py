import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The files whose tests take longest (CPU time of each file alone, for the first
# eight; per-file sums of `pytest --durations=0` over a whole run on 2 workers for
# the rest: torch programs run in subprocesses, whole-corpus comparisons, the fix
# loop's plain twin), longest first. test_verify.py and test_oracle.py, whose runs
# the sandbox's fork server made a third and four fifths as costly, are placed by
# their new CPU time alone (docs/benchmarks.md, "The sandbox's fork server").
# tests/semantic/test_resolution.py (LibCST's scope analysis of every fixture, case
# and example, compared with the project's) is the longest file of all; mypy's one
# run (test_types.py) and the oracle's corpus functions (test_oracle_corpus.py)
# would otherwise start late, by name, and run alone. The last eight took 45 to 130 s
# of wall time each on a loaded worker (a whole run's --durations, 2026-12-03: the
# fresh-clone install and its wheel, the --diff loop against the full loop, the fix
# loop with known code, spliced parses, the new-rule scaffold, the terminal output,
# the speed scripts, pre-commit); unlisted, they started among the short files by
# name, half of them in the last third. Under pytest-xdist with `--dist loadfile`
# each file goes whole to one worker, in collection order; started first, none of them
# is left running alone on one worker at the end while the other worker waits, and the
# many short files fill in behind them. A stale list costs only time, never a result.
# pytest_configure keeps xdist from putting the files with most tests first instead.
LONGEST_FIRST = (
    "test_resolution.py",
    "test_lazy_rules.py",
    "test_parallel.py",
    "test_fix_loop.py",
    "test_verify.py",
    "test_oracle.py",
    "test_types.py",
    "test_traversal.py",
    "test_oracle_corpus.py",
    "test_oracle_escape.py",
    "test_hostile.py",
    "test_cli_adoption.py",
    "test_prefilter.py",
    "test_sandbox_fork.py",
    "test_migrate_runtime.py",
    "test_guard_invisible.py",
    "test_migrate_trusted.py",
    "test_import_changes.py",
    "test_migrate_volatile.py",
    "test_packaging.py",
    "test_fix_diff_lints.py",
    "test_known_code.py",
    "test_reparse.py",
    "test_new_rule.py",
    "test_cli_io.py",
    "test_speed_scripts.py",
    "test_pre_commit.py",
)


def pytest_configure(config):
    # xdist's loadfile hands out files with the most tests first unless told not
    # to; the order that matters here is time, which LONGEST_FIRST gives.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    if not hasattr(config, "workerinput"):  # a serial run keeps the usual order
        return
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
