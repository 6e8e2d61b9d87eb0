"""Worker processes: the same output whatever --jobs is, Ctrl-C, dying workers."""

from __future__ import annotations

import gc
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import termios
import textwrap
import threading
import weakref
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import FIXTURES
from gradlint import parallel, progress, scheduler, session
from gradlint.cli import main


def run(*args):
    result = CliRunner().invoke(main, ["check", "--no-cache", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def fixtures_copy(tmp_path, monkeypatch):
    target = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, target)
    monkeypatch.chdir(tmp_path)
    return target


def test_output_does_not_depend_on_the_number_of_workers(fixtures_copy, monkeypatch):
    pools = []
    real = parallel.map_ordered
    monkeypatch.setattr(parallel, "map_ordered", lambda *a, **k: pools.append(a[2]) or real(*a, **k))
    for fmt, counts in (("text", ("2", "3", "8")), ("json", ("2",))):
        serial = run("fixtures", "--jobs", "1", "--output-format", fmt)
        assert serial[0] == 1 and serial[1]
        for jobs in counts:
            assert run("fixtures", "--jobs", jobs, "--output-format", fmt) == serial
    assert pools == [2, 3, 8, 2]  # the parallel runs did use workers


def test_fixes_written_by_workers_are_those_of_a_serial_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURES, tmp_path / "serial")
    shutil.copytree(FIXTURES, tmp_path / "parallel")
    serial = run("serial", "--fix", "--unsafe-fixes", "--jobs", "1")
    parallel_ = run("parallel", "--fix", "--unsafe-fixes", "--jobs", "2")
    assert serial[0] == parallel_[0] and serial[1].replace("serial", "parallel") == parallel_[1]
    changed = 0
    for path in sorted((tmp_path / "serial").rglob("*.py")):
        twin = tmp_path / "parallel" / path.relative_to(tmp_path / "serial")
        assert twin.read_bytes() == path.read_bytes(), path
        changed += path.read_bytes() != (FIXTURES / path.relative_to(tmp_path / "serial")).read_bytes()
    assert changed >= 5


@pytest.mark.skipif(not parallel.forks(), reason="only forked workers gate files")
@pytest.mark.parametrize("jobs, gated_here", [("1", True), ("2", False)])
def test_in_a_large_parallel_run_the_workers_decide_what_to_parse(fixtures_copy, monkeypatch, jobs, gated_here):
    from gradlint import engine

    assert len(list(fixtures_copy.rglob("*.py"))) >= scheduler.GATE_IN_WORKERS
    asked = []  # what a worker appends stays in the worker
    real = engine.needs_parse
    monkeypatch.setattr(engine, "needs_parse", lambda *a: asked.append(a) or real(*a))
    code, out, _ = run("fixtures", "--jobs", jobs)
    assert code == 1 and "fixtures/GL002/mnist_train.py:" in out
    assert bool(asked) is gated_here


@pytest.mark.parametrize(
    "paths",
    [
        ["fixtures/GL002/mnist_train.py"],  # the pre-commit case
        # 3 files to parse, below MIN_PARALLEL
        ["fixtures/GL002/mnist_train.py", "fixtures/GL003/logging_losses.py", "fixtures/GL003/convergence_metric.py"],
    ],
)
def test_a_small_run_starts_no_workers(fixtures_copy, monkeypatch, paths):
    assert scheduler.MIN_PARALLEL == 4
    monkeypatch.setattr(parallel, "map_ordered", lambda *a, **k: pytest.fail("workers started"))
    code, out, _ = run(*paths, "--jobs", "8")
    assert code == 1 and "mnist_train.py:" in out


def _square(x: int) -> int:
    return x * x


def _die_on(x: int, bad: int) -> int:
    if x == bad:
        os._exit(3)  # as a segfault in the parser would
    return x + 1


def test_map_keeps_item_order():
    assert parallel.map_ordered(_square, [(i,) for i in range(20)], 3) == [i * i for i in range(20)]


@pytest.mark.skipif(not parallel.forks(), reason="only forked workers inherit the parent's objects")
def test_forked_workers_keep_what_they_inherited_out_of_the_collector():
    counts = parallel.map_ordered(gc.get_freeze_count, [(), ()], 2)
    assert all(count > 10_000 for count in counts)  # the modules, at least
    assert gc.get_freeze_count() == 0  # the parent's own collector is left alone


def test_the_collector_waits_for_the_end_of_a_file_then_frees_its_cycles():
    class Node:
        pass

    with session.one_file():
        node = Node()
        node.self = node  # a reference cycle, as a file's semantic model makes
        alive = weakref.ref(node)
        del node
        many = [[i] for i in range(100_000)]  # would set off many collections
        assert alive() is not None
        del many
    assert gc.isenabled()
    assert alive() is None


def test_a_paused_collector_stays_paused():
    gc.disable()
    try:
        with session.one_file():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_worker_that_dies_costs_only_its_own_item():
    results = parallel.map_ordered(_die_on, [(i, 5) for i in range(12)], 2)
    assert [r for i, r in enumerate(results) if i != 5] == [i + 1 for i in range(12) if i != 5]
    assert isinstance(results[5], parallel.WorkerDied)


def test_a_dead_worker_is_an_internal_error_for_that_file_only():
    report = scheduler._as_report(Path("a.py"), parallel.WorkerDied("the worker process checking this file died"))
    assert report.internal_error and report.errors == [
        "internal error: WorkerDied: the worker process checking this file died"
    ]


# -- the project index's summaries ------------------------------------------------

SUMMARISED = textwrap.dedent(
    """\
    import torch


    class Net{n}(torch.nn.Module):
        pass


    def evaluate{n}(agent, batches):
        with torch.no_grad():
            helper{n}(batches)
        for b in batches:
            agent.act{n}(b)
    """
)


def _documents(count):
    from types import SimpleNamespace

    return [(f"m{n}.py", Path(f"m{n}.py"), SUMMARISED.format(n=n), SimpleNamespace(), None) for n in range(count)]


def test_summaries_made_by_workers_are_those_of_a_serial_run():
    pending = _documents(2 * session._SUMMARY_CHUNK + 5)  # enough for workers, and a last chunk of 5
    serial = session._summarize(pending, 1)
    assert serial[7] == {
        "classes": {"Net7": ["torch.nn.Module"]},
        "calls": {"no_grad": [1, 0], "helper7": [1, 1], "act7": [1, 0]},
        "inference_calls": [["act7", "evaluate7", 12]],
        "forwards": {},
        "forwards_if": {},
        "function_calls": {"torch.no_grad": [1, 0], "*helper7": [1, 1]},
        "wraps": {},
        "runs_attributes": {},
        "factories": {},
        "param_free_classes": {"Net7": ["torch.nn.Module"]},
        "stars": [],
        "dropped": {},
        "exports": {},
        "v": 14,
    }
    assert session._summarize(pending, 2) == serial
    assert session._PENDING == []  # nothing kept past the run


def test_files_whose_summary_worker_died_give_no_facts_and_the_others_theirs(monkeypatch):
    pending = _documents(3 * session._SUMMARY_CHUNK)
    real = parallel.map_ordered

    def one_dies(fn, items, jobs):
        results = real(fn, items, jobs)
        results[1] = parallel.WorkerDied("the worker process checking this file died")
        return results

    monkeypatch.setattr(parallel, "map_ordered", one_dies)
    summaries = session._summarize(pending, 2)
    serial = session._summarize(pending, 1)
    chunk = session._SUMMARY_CHUNK
    assert summaries[chunk : 2 * chunk] == [None] * chunk
    assert summaries[:chunk] == serial[:chunk] and summaries[2 * chunk :] == serial[2 * chunk :]
    assert all(s is not None for s in serial)


def _raise(message: str) -> None:
    raise ValueError(message)


def test_beside_runs_the_work_in_a_worker_while_this_process_does_its_own():
    here = []
    assert parallel.beside(_square, (7,), lambda: here.append(os.getpid())) == 49
    assert here == [os.getpid()]
    assert isinstance(parallel.beside(_die_on, (5, 5), lambda: None), parallel.WorkerDied)
    raised = parallel.beside(_raise, ("in the worker",), lambda: None)
    assert isinstance(raised, ValueError) and str(raised) == "in the worker"


def _long_file(lines: int) -> str:
    text = SUMMARISED.format(n=0) + "\n\n" + "".join(SLOW.format(n=n) + "\n\n" for n in range(lines // 14))
    assert len(text) > session.BESIDE_TEXT
    return text


@pytest.mark.skipif(not parallel.forks(), reason="the summaries are made beside the parse by a forked worker")
def test_a_long_file_is_parsed_while_a_worker_summarises_it(tmp_path, monkeypatch):
    from gradlint import engine, parsing
    from gradlint.config import Settings
    from gradlint.runner import Mode

    path = tmp_path / "long.py"
    path.write_text(_long_file(12_000), encoding="utf-8")
    serial = scheduler.check_paths([path], Settings(None, select=["GL002", "GL003"]), Mode(), jobs=1)
    besides, parses = [], []
    real_beside, real_parse = parallel.beside, parsing.parse_module
    monkeypatch.setattr(parallel, "beside", lambda *a: besides.append(a[1]) or real_beside(*a))
    monkeypatch.setattr(parsing, "parse_module", lambda text, *a, **k: parses.append(len(text)) or real_parse(text, *a, **k))
    frozen = []
    real_engine_parse = engine.parse
    monkeypatch.setattr(engine, "parse", lambda text: frozen.append(gc.get_freeze_count()) or real_engine_parse(text))
    reports = scheduler.check_paths([path], Settings(None, select=["GL002", "GL003"]), Mode(), jobs=2)
    assert besides == [(0, 1)]
    # The tree made ahead is out of the collector's sight until its check, then back.
    assert len(frozen) == 1 and frozen[0] > 100_000 and gc.get_freeze_count() == 0
    # One parse of the file, made ahead and taken by its check (the other: the fixes
    # applied together, checked to parse); nothing kept after.
    size = len(path.read_text(encoding="utf-8"))
    assert parses[0] == size and parses.count(size) == 1 and len(parses) == 2
    assert engine._AHEAD == {}
    assert [(d.code, d.row, d.column) for d in reports[0].diagnostics] == [(d.code, d.row, d.column) for d in serial[0].diagnostics]
    assert len(reports[0].diagnostics) > 1000


def test_a_short_file_or_one_job_summarises_here(tmp_path, monkeypatch):
    from gradlint.config import Settings
    from gradlint.runner import Mode

    monkeypatch.setattr(parallel, "beside", lambda *a: pytest.fail("a worker started"))
    for name, text in (("short", SLOW.format(n=0)), ("long", _long_file(12_000))):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.py").write_text(text, encoding="utf-8")
    settings = Settings(None, select=["GL002"])
    assert scheduler.check_paths([tmp_path / "short" / "short.py"], settings, Mode(), jobs=2)[0].diagnostics
    assert scheduler.check_paths([tmp_path / "long" / "long.py"], settings, Mode(), jobs=1)[0].diagnostics


def test_the_last_file_is_not_collected_where_the_process_ends_after(tmp_path, monkeypatch):
    from gradlint.config import Settings
    from gradlint.runner import Mode

    files = []
    for n in range(2):
        files.append(tmp_path / f"m{n}.py")
        files[-1].write_text(SLOW.format(n=n), encoding="utf-8")
    collected = []
    monkeypatch.setattr(session.gc, "collect", lambda *a: collected.append(a) or 0)
    settings = Settings(None, select=["GL002"])
    scheduler.check_paths(files, settings, Mode(), jobs=1)
    # After each summary and each file; then the same less the last file's.
    assert len(collected) == 4
    collected.clear()
    scheduler.check_paths(files, settings, Mode(), jobs=1, last_collection=False)
    assert len(collected) == 3


# -- Ctrl-C ---------------------------------------------------------------------

SLOW = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable


    def step{n}(model, batch, target):
        x = Variable(batch)
        y = Variable(target)
        out = model(x)
        print(out.sum().data[0])
        return out, y
    """
)


def _fixed(n: int) -> str:
    return SLOW.format(n=n).replace("from torch.autograd import Variable\n", "").replace(
        "Variable(batch)", "batch.detach()"
    ).replace("Variable(target)", "target.detach()").replace(".data[0]", ".item()")


# Code every rule reads and none reports: it makes each file take long enough to
# check that the run cannot end between its first progress line and the test's
# Ctrl-C, even on a loaded machine (the files alone are fixed in a second or two).
BULK = textwrap.dedent(
    """\

    def bulk{n}_{k}(model, batch, weights):
        out = model(batch) * weights[{k}]
        total = 0
        for row in out:
            total = total + row.sum().item()
        return out.mean(), total
    """
)


def _bulk(n: int) -> str:
    return "".join(BULK.format(n=n, k=k) for k in range(40))


# Bounds on the waits of a run that a loaded machine slows down many times over:
# each ends as soon as its condition holds, so only a run that is broken waits this long.
FIRST_FILE_WITHIN = 600
EXIT_WITHIN = 600
_PROGRESS_LINE = re.compile(r"\r\[[=> ]*\] +\d+/300 files +\d+\.\ds")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_cleanly(tmp_path, jobs):
    files = []
    for n in range(300):
        path = tmp_path / f"m{n:03}.py"
        path.write_text(SLOW.format(n=n) + _bulk(n) + "\n" * (n % 3) + "# padding\n" * 40)
        files.append(path)
    originals = {p: p.read_text() for p in files}
    # stderr on a terminal, where `check` draws its progress line: the first one is
    # drawn once the first file is done (fixed and written), by the parent, after it
    # has handed every file to its workers. A Ctrl-C then lands where a user's does,
    # never in the moment the pool starts (SIGINT ignored while workers are forked),
    # however slowly a loaded machine runs the start-up.
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # "\n" as written, not "\r\n"
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gradlint", "check", "--fix", "--no-cache", "--jobs", jobs, "."],
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "80"},  # the bar's width, whatever the test's terminal
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
        # A shell starts a background job (`pytest ... &`) with SIGINT ignored, which its
        # children inherit, and Python leaves an ignored SIGINT ignored: the run would
        # never see the Ctrl-C. A terminal's foreground job has the default action.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(slave)
    err = bytearray()
    first_line = threading.Event()

    def read_stderr():
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            err.extend(chunk)
            if b" files " in err:
                first_line.set()
        first_line.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert first_line.wait(FIRST_FILE_WITHIN) and proc.poll() is None, bytes(err)
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=EXIT_WITHIN)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=60)
        os.close(master)
    assert proc.returncode == 130, (out, bytes(err))
    # Nothing but the progress line, erased when the run stops, and this message.
    text = err.decode()
    assert out == "" and text.endswith(progress.ERASE_LINE + "error: interrupted\n"), text
    drawn = text[: -len(progress.ERASE_LINE + "error: interrupted\n")]
    assert drawn and _PROGRESS_LINE.sub("", drawn) == "", drawn
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    fixed = [p for p in files if p.read_text() != originals[p]]
    assert 0 < len(fixed) < len(files)
    for p in fixed:  # each file is whole: either untouched or completely fixed
        n = int(p.stem[1:])
        assert p.read_text() == _fixed(n) + _bulk(n) + "\n" * (n % 3) + "# padding\n" * 40


@pytest.mark.parametrize(
    "fmt,extra,preloaded", [("concise", [], False), ("json", [], False), ("full", [], False), ("github", [], False), ("concise", ["--diff"], True)]
)
def test_forked_workers_get_the_import_codemods_from_the_parent_when_fixes_are_applied(fixtures_copy, monkeypatch, fmt, extra, preloaded):
    """Applying fixes (--fix, --diff) may change imports in ways only `libcst.codemod` does:
    imported once in the parent before the workers are forked, not once in each. Fix
    edits (json, sarif, full) are rendered without it: the parent does not pay for it."""
    from gradlint import import_changes

    loads = []
    monkeypatch.setattr(import_changes, "preload_import_changes", lambda: loads.append(fmt))
    monkeypatch.setattr(parallel, "map_ordered", lambda fn, items, jobs, on_result=None: [on_result(k, fn(*item)) for k, item in enumerate(items)])
    code, out, _ = run("fixtures", "--jobs", "2", "--output-format", fmt, *extra)
    assert code == 1 and out
    assert loads == ([fmt] if preloaded else [])


# -- gradlint migrate -----------------------------------------------------------

LEGACY_DIRS = ("GL001", "GL002", "GL003", "GL004", "GL005", "migrate")


def _migrate(*args):
    result = CliRunner().invoke(main, ["migrate", *args])
    return result.exit_code, result.stdout, result.stderr


def test_migrate_on_workers_writes_and_reports_what_a_serial_run_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for run_dir in ("serial", "parallel"):
        for name in LEGACY_DIRS:
            shutil.copytree(FIXTURES / name, tmp_path / run_dir / name)
    pools = []
    real = parallel.map_ordered
    monkeypatch.setattr(parallel, "map_ordered", lambda *a, **k: pools.append(a[2]) or real(*a, **k))
    serial = _migrate("serial", "--jobs", "1", "--output-format", "json")
    assert pools == []
    parallel_ = _migrate("parallel", "--jobs", "2", "--output-format", "json")
    assert pools and pools[-1] == 2  # the migration itself ran on workers
    assert serial[0] == 1 and '"files_changed": 25,' in serial[1]  # the rules' verify scripts among them
    assert (parallel_[0], parallel_[1], parallel_[2]) == (serial[0], serial[1].replace("serial", "parallel"), serial[2])
    changed = 0
    for path in sorted((tmp_path / "serial").rglob("*.py")):
        twin = tmp_path / "parallel" / path.relative_to(tmp_path / "serial")
        assert twin.read_bytes() == path.read_bytes(), path
        changed += path.read_bytes() != (FIXTURES / path.relative_to(tmp_path / "serial")).read_bytes()
    assert changed >= 10
    # The diff and the text summary too (the files are migrated already: what is left to do).
    for name in ("GL001", "GL002"):
        for run_dir in ("serial", "parallel"):
            shutil.rmtree(tmp_path / run_dir / name)
            shutil.copytree(FIXTURES / name, tmp_path / run_dir / name)
    serial = _migrate("serial", "--jobs", "1", "--diff")
    parallel_ = _migrate("parallel", "--jobs", "3", "--diff")
    assert serial[0] == 1 and "+++ serial/GL002/mnist_train.py\n" in serial[1] and serial[2]
    assert parallel_ == (serial[0], serial[1].replace("serial", "parallel"), serial[2].replace("serial", "parallel"))


# A migration run whose worker dies on one file, in a process of its own: the forked
# workers must inherit the patched ``migrate_file``, whatever state earlier tests of
# this process left behind (the suite saw it pass alone and fail now and then among
# other files).
DYING_WORKER = """\
import os, sys
from click.testing import CliRunner
from gradlint import migrate
from gradlint.cli import main

real = migrate.migrate_file


def die_on_mnist(path, session, mode):
    if path.name == "mnist_train.py":
        os._exit(3)  # as a segfault in the parser would
    return real(path, session, mode)


migrate.migrate_file = die_on_mnist
result = CliRunner().invoke(main, ["migrate", "GL001", "GL002", "--jobs", "2", "--check"])
sys.stdout.write(result.stdout)
sys.stderr.write(result.stderr)
sys.exit(result.exit_code)
"""


def test_migrate_reports_a_file_whose_worker_died_and_goes_on(tmp_path):
    for name in ("GL001", "GL002"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    (tmp_path / "drive.py").write_text(DYING_WORKER, encoding="utf-8")
    done = subprocess.run([sys.executable, "drive.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    code, out, err = done.returncode, done.stdout, done.stderr
    assert code == 2, err
    assert err.count("error: GL002/mnist_train.py: internal error: WorkerDied: ") == 1
    assert "GL001/" in out
