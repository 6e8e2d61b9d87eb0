import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The files whose tests take longest, longest first: per-file sums of
# `pytest --durations=0` over a whole run on 2 workers (2026-12-03, this session's
# machine), with the oracle's corpus file placed by its setup on a fresh clone,
# which downloads its sample code base (40 to 70 s on a busy worker). Torch
# programs run in subprocesses, whole-corpus comparisons (test_resolution.py:
# LibCST's scope analysis of every fixture, case and example, the longest file),
# the fix loop's plain twin. Under pytest-xdist with `--dist loadfile` each file
# goes whole to one worker, in collection order; started first, none of them is
# left running alone on one worker at the end while the other worker waits, and
# the many short files fill in behind them. A stale list costs only time, never a
# result. pytest_configure keeps xdist from putting the files with most tests
# first instead.
LONGEST_FIRST = (
    "test_resolution.py",
    "test_oracle_corpus.py",
    "test_lazy_rules.py",
    "test_oracle.py",
    "test_verify.py",
    "test_parallel.py",
    "test_fix_loop.py",
    "test_reparse.py",
    "test_sandbox_fork.py",
    "test_traversal.py",
    "test_cli_adoption.py",
    "test_guard_invisible.py",
    "test_oracle_escape.py",
    "test_known_code.py",
    "test_fix_diff_lints.py",
    "test_hostile.py",
    "test_prefilter.py",
    "test_output_golden.py",
    "test_import_changes.py",
    "test_server.py",
    "test_packaging.py",
    "test_types.py",
    "test_new_rule.py",
    "test_pre_commit.py",
    "test_migrate_runtime.py",
    "test_speed_scripts.py",
    "test_migrate_trusted.py",
    "test_cli_io.py",
    "test_migrate_volatile.py",
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
