"""The results cache: hits, and every change that must invalidate an entry.

A hit is proven by making the engine unusable: if anything were linted again,
the run would fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint import cache as cache_mod
from gradlint.cli import main

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable


    def log(loss, x):
        print(loss.sum().data[0])
        return Variable(x)
    """
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "legacy.py").write_text(LEGACY)
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.zeros(3)\n")
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, ["check", *args])


def cache_file(project: Path) -> Path:
    (found,) = (project / ".gradlint_cache").glob("*/*.json")
    return found


@pytest.fixture
def later(monkeypatch):
    """Runs from now on happen a minute later: files written so far are not
    "racily clean", and their stat data is trusted."""
    real = cache_mod.time.time_ns
    monkeypatch.setattr(cache_mod.time, "time_ns", lambda: real() + 60 * 10**9)


@pytest.fixture
def no_linting(monkeypatch):
    """After this, any file that is linted fails the run."""

    def refuse(*args, **kwargs):
        raise AssertionError("linted although cached")

    def enable():
        import gradlint.engine
        import gradlint.scheduler

        monkeypatch.setattr(gradlint.scheduler, "lint_file", refuse)
        monkeypatch.setattr(gradlint.engine, "needs_parse", refuse)

    return enable


def test_second_run_is_answered_from_the_cache(project, no_linting):
    first = run()
    assert first.exit_code == 1
    assert first.stdout.count("legacy.py:") == 2
    root = project / ".gradlint_cache"
    assert (root / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    assert (root / ".gitignore").read_text().splitlines()[-1] == "*"
    no_linting()
    second = run()
    assert (second.exit_code, second.stdout, second.stderr) == (first.exit_code, first.stdout, first.stderr)


def test_untouched_files_are_not_read_again(project, monkeypatch, later):
    first = run()
    import gradlint.scheduler

    monkeypatch.setattr(gradlint.scheduler, "read_document", lambda path: pytest.fail(f"{path} was read"))
    assert run().stdout == first.stdout


def test_a_changed_file_is_checked_again_even_with_the_same_size_and_mtime(project, later):
    legacy = project / "legacy.py"
    assert "GL003" in run().stdout
    st = legacy.stat()
    legacy.write_text(LEGACY.replace("loss.sum().data[0]", "loss.sum().item() "))  # same length
    os.utime(legacy, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert legacy.stat().st_size == st.st_size and legacy.stat().st_mtime_ns == st.st_mtime_ns
    out = run().stdout
    assert "GL003" not in out and "GL002" in out


def test_touched_but_unchanged_file_is_a_hit(project, no_linting):
    first = run()
    (project / "legacy.py").touch()
    no_linting()
    assert run().stdout == first.stdout


def test_selection_on_the_command_line_is_part_of_the_key(project, no_linting):
    assert [line.split()[1] for line in run("-q").stdout.splitlines()] == ["GL003", "GL002"]
    assert [line.split()[1] for line in run("-q", "--select", "GL003").stdout.splitlines()] == ["GL003"]
    no_linting()  # both selections are cached side by side
    assert [line.split()[1] for line in run("-q").stdout.splitlines()] == ["GL003", "GL002"]


def test_configuration_changes_invalidate(project):
    assert "GL002" in run("-q").stdout
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL002"]\n')
    assert [line.split()[1] for line in run("-q").stdout.splitlines()] == ["GL003"]
    (project / "pyproject.toml").write_text('[tool.gradlint]\nper-file-ignores = {"legacy.py" = ["GL003"]}\n')
    assert [line.split()[1] for line in run("-q").stdout.splitlines()] == ["GL002"]
    (project / "pyproject.toml").write_text('[tool.gradlint]\nfix-grad-guard = "inference_mode"\n')
    assert len(run("-q").stdout.splitlines()) == 2


def test_fix_options_change_the_key():
    from gradlint.options import RuleOptions

    codes = frozenset({"GL001"})
    keys = {
        cache_mod.settings_key(codes, RuleOptions(), False),
        cache_mod.settings_key(codes, RuleOptions(fix_grad_guard="inference_mode"), False),
        cache_mod.settings_key(codes, RuleOptions(), True),
        cache_mod.settings_key(codes | {"GL002"}, RuleOptions(), False),
    }
    assert len(keys) == 4


def test_another_gradlint_build_does_not_use_the_entries(project, monkeypatch):
    run()
    old = cache_file(project)
    monkeypatch.setattr(cache_mod, "_build_id", lambda: "0123456789abcdef")
    import gradlint.scheduler

    calls = []
    real = gradlint.scheduler.lint_file
    monkeypatch.setattr(gradlint.scheduler, "lint_file", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    assert run().exit_code == 1
    assert calls == [Path("clean.py"), Path("legacy.py")]  # nothing came from the old build's entries
    assert old.exists() and (old.parent / "0123456789abcdef.json").exists()


def test_json_output_with_fix_edits_is_cached_apart(project, no_linting):
    text = run().stdout
    as_json = run("--output-format", "json").stdout
    assert json.loads(as_json)[0]["fix"]["edits"]
    no_linting()
    assert run("--output-format", "json").stdout == as_json
    assert run().stdout == text


def test_full_output_is_served_from_the_cache_with_its_source_and_fix_previews(project, no_linting, later):
    first = run("--output-format", "full")
    assert "legacy.py:6:11" in first.stdout and "6 |     print(loss.sum().data[0])" in first.stdout
    assert "6 +     print(loss.sum().item())" in first.stdout  # the preview of the GL003 fix
    no_linting()
    second = run("--output-format", "full")
    assert (second.exit_code, second.stdout) == (first.exit_code, first.stdout)
    # The entry is the one JSON output uses too (both need fix edits).
    assert run("--output-format", "json").exit_code == 1


def test_full_output_rechecks_a_file_changed_after_its_stat_was_cached(project, monkeypatch, later):
    run("--output-format", "full")
    import gradlint.scheduler

    real = gradlint.scheduler._read

    def edited_meanwhile(path):
        (project / "legacy.py").write_text(LEGACY.replace("print(loss.sum().data[0])", "print(loss)"))
        return real(path)

    monkeypatch.setattr(gradlint.scheduler, "_read", edited_meanwhile)
    out = run("--output-format", "full").stdout
    assert "GL003" not in out and "print(loss)" in out


@pytest.mark.parametrize("garbage", [b"", b"\x00\xff not json", b"[1, 2]", b'{"schema": 1, "entries": []}'])
def test_a_corrupt_cache_file_is_ignored_and_rewritten(project, garbage):
    first = run()
    target = cache_file(project)
    target.write_bytes(garbage)
    again = run()
    assert (again.exit_code, again.stdout, again.stderr) == (first.exit_code, first.stdout, "")
    assert json.loads(target.read_bytes())["schema"] == cache_mod.SCHEMA


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(row="7"),
        lambda d: d.update(row=True),
        lambda d: d.pop("message"),
        lambda d: d.update(extra=1),
        lambda d: d["fix"].update(edits=[{"content": 1}]),
        lambda d: d.update(fix="safe"),
    ],
)
def test_a_corrupt_entry_is_a_miss_and_is_rewritten(project, damage):
    first = run("--output-format", "json")
    target = cache_file(project)
    data = json.loads(target.read_bytes())
    (entry,) = [e for k, e in data["entries"].items() if k.split("\0")[0].endswith("legacy.py")]
    damage(entry["diagnostics"][0])
    target.write_text(json.dumps(data))
    again = run("--output-format", "json")
    assert (again.exit_code, again.stdout) == (first.exit_code, first.stdout)
    (entry,) = [e for k, e in json.loads(target.read_bytes())["entries"].items() if k.split("\0")[0].endswith("legacy.py")]
    assert cache_mod.decode_diagnostics(entry["diagnostics"]) is not None


def test_no_cache_neither_reads_nor_writes(project):
    assert run("--no-cache").exit_code == 1
    assert not (project / ".gradlint_cache").exists()


def test_cache_dir_option_and_environment(project, monkeypatch):
    run("--cache-dir", "elsewhere")
    assert (project / "elsewhere" / "CACHEDIR.TAG").exists() and not (project / ".gradlint_cache").exists()
    monkeypatch.setenv("GRADLINT_CACHE_DIR", str(project / "from-env"))
    run()
    assert (project / "from-env" / ".gitignore").exists()


def test_cache_goes_to_the_project_root(project):
    (project / "sub").mkdir()
    (project / "sub" / "a.py").write_text(LEGACY)
    os.chdir(project / "sub")
    run("a.py")
    assert (project / ".gradlint_cache").is_dir() and not (project / "sub" / ".gradlint_cache").exists()


def test_an_unwritable_cache_location_does_not_fail_the_run(project):
    (project / ".gradlint_cache").write_text("a file where the directory should be")
    result = run()
    assert result.exit_code == 1 and result.stderr == ""
    assert result.stdout.count("legacy.py:") == 2


def test_concurrent_runs_merge_and_leave_a_valid_file(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    first, second = cache_mod.Cache(tmp_path / "c"), cache_mod.Cache(tmp_path / "c")
    first.store(first.key(a, "k"), "da", a.stat(), [])
    second.store(second.key(b, "k"), "db", b.stat(), [])
    first.save()
    second.save()
    entries = json.loads(first.path.read_bytes())["entries"]
    assert sorted(k.split("\0")[0] for k in entries) == [str(a), str(b)]
    assert not [p for p in first.path.parent.iterdir() if p.suffix == ".tmp"]


def test_cache_files_are_written_whole_with_the_umask_and_leave_no_temporary_file(tmp_path, monkeypatch):
    # Written without tempfile (its imports cost a small file's check): a name of
    # its own beside the target, taken with O_EXCL, mode 0o666 less the umask.
    taken = tmp_path / "c"
    taken.mkdir()
    names = iter([bytes(6), bytes(6), b"\x01" * 6])
    monkeypatch.setattr(cache_mod.os, "urandom", lambda n: next(names))
    (taken / f".entry.{os.getpid()}.{bytes(6).hex()}.tmp").write_bytes(b"someone else's")
    old = os.umask(0o027)
    try:
        cache_mod._write_atomic(taken / "entry", b"data")
    finally:
        os.umask(old)
    assert (taken / "entry").read_bytes() == b"data"
    assert (taken / "entry").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in taken.iterdir()) == [f".entry.{os.getpid()}.{bytes(6).hex()}.tmp", "entry"]


def test_recently_modified_files_are_checked_by_content(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    c = cache_mod.Cache(tmp_path / "c")
    c.store("k", "d", path.stat(), [])
    c.save()
    reread = cache_mod.Cache(tmp_path / "c")
    assert reread.lookup_stat("k", path.stat()) is None  # racily clean: hash it
    assert reread.lookup_digest("k", "d", path.stat()) == []
    real = cache_mod.time.time_ns
    monkeypatch.setattr(cache_mod.time, "time_ns", lambda: real() + 60 * 10**9)
    aged = cache_mod.Cache(tmp_path / "c")
    assert aged.lookup_digest("k", "d", path.stat()) == []  # now old enough to trust its stat
    aged.save()
    assert cache_mod.Cache(tmp_path / "c").lookup_stat("k", path.stat()) == []


def test_fix_uses_the_cache_only_for_files_with_nothing_to_fix(project, monkeypatch):
    run()
    import gradlint.scheduler

    fixed = []
    real = gradlint.scheduler.lint_file
    monkeypatch.setattr(gradlint.scheduler, "lint_file", lambda *a, **k: fixed.append(str(a[0])) or real(*a, **k))
    result = run("--fix")
    assert fixed == ["legacy.py"]
    assert "loss.sum().item()" in (project / "legacy.py").read_text()
    assert result.exit_code == 0


def test_warm_run_does_not_import_libcst(project):
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom gradlint.cli import main\n"
        "r = CliRunner().invoke(main, ['check', 'legacy.py', 'clean.py'])\n"
        "assert r.exit_code == 1, r.output\n"
        "sys.exit(1 if 'libcst' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=project).returncode == 1  # cold: parses
    assert subprocess.run([sys.executable, "-c", code], cwd=project).returncode == 0  # warm: no LibCST


STAR_USER = textwrap.dedent(
    """\
    from helpers import *


    def evaluate(model, x):
        return model(Variable(x, volatile=True)).argmax(1)
    """
)


def test_a_star_importing_file_is_cached_until_a_module_it_reads_changes(tmp_path, monkeypatch, later, no_linting):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers.py").write_text("import torch\nfrom torch.autograd import Variable\n")
    (tmp_path / "main.py").write_text(STAR_USER)
    first = run("main.py")
    assert [line.split(" ")[:2] for line in first.stdout.splitlines()[:1]] == [["main.py:5:18:", "GL001"]]
    entry = next(e for k, e in json.loads(cache_file(tmp_path).read_text())["entries"].items() if k.startswith(str(tmp_path / "main.py")))
    assert [Path(d[0]).name for d in entry["deps"]] == ["helpers.py"]
    no_linting()
    assert run("main.py").stdout == first.stdout
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    # what the star import binds changes with the module it reads: checked again
    (tmp_path / "helpers.py").write_text("def Variable(x, volatile=False):\n    return x\n")
    os.utime(tmp_path / "helpers.py", ns=(10**18, 10**18))
    assert "GL001" not in run("main.py").stdout
