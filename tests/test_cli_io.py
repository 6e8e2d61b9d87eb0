"""Standard streams: `check -` (stdin), terminals (default format, colours, progress bar)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gradlint import progress
from gradlint.cli import main
from samples import ASYNC_LEGACY, LEGACY, LEGACY_FIXED

GL001_LINE = (
    ":6:17: GL001 [*] `volatile=True` has been ignored since PyTorch 0.4: this call still records an autograd graph; "
    "use `torch.no_grad()`"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADLINT_OUTPUT_FORMAT", raising=False)
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


# -- stdin --------------------------------------------------------------------


def test_stdin_check_reports_as_dash(project):
    result = run("check", "-", input=LEGACY)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "-" + GL001_LINE
    assert result.stdout.splitlines()[-1] == "Found 2 problems (2 fixable with --fix)."


def test_stdin_filename_names_the_file_and_selects_its_config(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nper-file-ignores = { "scripts/*" = ["GL001"] }\n')
    result = run("check", "--stdin-filename", "models/eval.py", "-", input=LEGACY)
    assert result.stdout.splitlines()[0] == "models/eval.py" + GL001_LINE
    # The same text as scripts/eval.py: GL001 is ignored there by the config.
    result = run("check", "-q", "--stdin-filename", "scripts/eval.py", "-", input=LEGACY)
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()] == ["GL003"]
    # --stdin-filename alone (no path) reads stdin too, as in Ruff.
    items = json.loads(run("check", "--output-format", "json", "--stdin-filename", "a.py", input=LEGACY).stdout)
    assert [(i["filename"], i["code"]) for i in items] == [("a.py", "GL001"), ("a.py", "GL003")]


def test_stdin_fix_prints_fixed_source_and_findings_on_stderr(project):
    result = run("check", "--fix", "--stdin-filename", "eval.py", "-", input=LEGACY)
    assert result.exit_code == 0
    assert result.stdout_bytes == LEGACY_FIXED.encode()
    assert result.stderr == "Found 2 problems (2 fixed, 0 remaining).\n"
    assert not (project / "eval.py").exists()


def test_stdin_fix_with_findings_left_exits_1(project):
    source = "import torch\nfrom torch.autograd import Variable\nv = Variable(x)\nif v.volatile:\n    pass\n"
    result = run("check", "--fix", "-", input=source)
    assert result.exit_code == 1
    assert result.stdout == "import torch\nv = x.detach()\nif v.volatile:\n    pass\n"
    assert result.stderr.splitlines()[0].startswith("-:3:4: GL004 ")
    assert result.stderr.splitlines()[-1] == "Found 2 problems (1 fixed, 1 remaining)."


def test_stdin_fix_keeps_encoding_bom_and_newlines(project):
    source = LEGACY.replace("\n", "\r\n").replace("import torch", "import torch  # é", 1)
    data = b"\xef\xbb\xbf" + source.encode("utf-8")
    result = run("check", "--fix", "-", input=data)
    expected = LEGACY_FIXED.replace("\n", "\r\n").replace("import torch", "import torch  # é", 1)
    assert result.stdout_bytes == b"\xef\xbb\xbf" + expected.encode("utf-8")
    latin = b"# -*- coding: latin-1 -*-\n" + LEGACY.replace("import torch", "import torch  # \xe9", 1).encode("latin-1")
    result = run("check", "--fix", "-", input=latin)
    assert result.exit_code == 0
    assert result.stdout_bytes == b"# -*- coding: latin-1 -*-\n" + LEGACY_FIXED.replace(
        "import torch", "import torch  # \xe9", 1
    ).encode("latin-1")


def test_stdin_unparsable_or_undecodable_input_comes_back_unchanged(project):
    broken = b"from torch.autograd import Variable\nprint Variable(x)\n"
    result = run("check", "--fix", "-", input=broken)
    assert result.exit_code == 1
    assert result.stdout_bytes == broken
    assert result.stderr.startswith("-:2:1: GL000 syntax error: Missing parentheses in call to 'print'")
    undecodable = b"from torch.autograd import Variable\nname = '\xe9'\n"
    result = run("check", "--fix", "-", input=undecodable)
    assert result.stdout_bytes == undecodable
    assert result.stderr.startswith("-:1:1: GL000 cannot decode as UTF-8: invalid byte 0xe9 on line 2")


def test_syntax_error_without_trigger_words_is_reported_alike_in_a_file_stdin_and_a_notebook(project):
    # No rule's trigger word is no reason to let a syntax error pass.
    source = "import torch\ndef f(:\n pass\n"
    result = run("check", "--output-format", "concise", "-", input=source)
    assert result.exit_code == 1
    assert result.stdout == "-:2:7: GL000 syntax error: invalid syntax\nFound 1 problem.\n"
    (project / "broken.py").write_text(source)
    cell = {"cell_type": "code", "execution_count": None, "id": "a", "metadata": {}, "outputs": [], "source": source.splitlines(True)}
    (project / "broken.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    result = run("check", "--no-cache", "--output-format", "concise", "broken.py", "broken.ipynb")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "broken.ipynb:cell 1:2:7: GL000 syntax error: invalid syntax",
        "broken.py:2:7: GL000 syntax error: invalid syntax",
        "Found 2 problems.",
    ]


GL003_MESSAGE = "`loss.data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises IndexError; use `loss.item()`"


def test_a_file_with_async_is_read_alike_whatever_the_selection(project):
    (project / "legacy_async.py").write_text(ASYNC_LEGACY)
    concise = ("check", "--no-cache", "--output-format", "concise")
    alone = run(*concise, "--select", "GL003", "legacy_async.py")
    assert alone.exit_code == 1
    # No [*]: the fix would need the rename, which this run does not make.
    assert alone.stdout == f"legacy_async.py:7:12: GL003 {GL003_MESSAGE}\nFound 1 problem.\n"
    both = run(*concise, "--select", "GL003,GL005", "legacy_async.py")
    assert both.exit_code == 1
    assert [line.split(" ", 2)[:2] for line in both.stdout.splitlines()[:2]] == [
        ["legacy_async.py:5:16:", "GL005"], ["legacy_async.py:7:12:", "GL003"]
    ]
    assert both.stdout.splitlines()[1] == f"legacy_async.py:7:12: GL003 [*] {GL003_MESSAGE}"
    assert run(*concise, "--select", "GL003", "-", input=ASYNC_LEGACY).stdout == f"-:7:12: GL003 {GL003_MESSAGE}\nFound 1 problem.\n"
    assert run(*concise, "--select", "GL001", "legacy_async.py").stdout == "All checks passed!\n"
    # --fix without the rename changes nothing, and says what is left.
    fixed = run("check", "--no-cache", "--fix", "--select", "GL003", "legacy_async.py")
    assert fixed.exit_code == 1 and (project / "legacy_async.py").read_text() == ASYNC_LEGACY
    diff = run("check", "--no-cache", "--diff", "--select", "GL003", "legacy_async.py")
    assert (diff.exit_code, diff.stdout, diff.stderr) == (0, "", "No fixes to apply.\n")


def test_a_syntax_error_is_reported_whatever_the_selection_and_the_directives(project):
    (project / "triggered.py").write_text("import torch\ndef f(:\n pass\n")
    (project / "plain.py").write_text("x = 1\ndef f(:\n pass\n")
    (project / "silenced.py").write_text("import torch  # gradlint: noqa\ndef f(:  # noqa: GL000\n pass\n")
    concise = ("check", "--no-cache", "--output-format", "concise")
    expected = (
        "plain.py:2:7: GL000 syntax error: invalid syntax\n"
        "silenced.py:2:7: GL000 syntax error: invalid syntax\n"
        "triggered.py:2:7: GL000 syntax error: invalid syntax\n"
        "Found 3 problems.\n"
    )
    files = ("plain.py", "silenced.py", "triggered.py")
    for selection in (("--select", "GL003"), ("--ignore", "GL000"), ("--select", "GL003", "--ignore", "GL000"), ()):
        result = run(*concise, *selection, *files)
        assert (result.exit_code, result.stdout) == (1, expected), selection
    assert run(*concise, "--ignore", "GL000", "-", input="x = 1\ndef f(:\n pass\n").stdout == (
        "-:2:7: GL000 syntax error: invalid syntax\nFound 1 problem.\n"
    )
    (project / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL003"]\nper-file-ignores = {"*.py" = ["GL000"]}\n')
    result = run(*concise, *files)
    assert (result.exit_code, result.stdout) == (1, expected)
    # A notebook cell too.
    cell = {"cell_type": "code", "execution_count": None, "id": "a", "metadata": {}, "outputs": [], "source": ["x = 1\n", "def f(:\n", " pass\n"]}
    (project / "broken.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    result = run(*concise, "broken.ipynb")
    assert (result.exit_code, result.stdout) == (1, "broken.ipynb:cell 1:2:7: GL000 syntax error: invalid syntax\nFound 1 problem.\n")


def test_stdin_diff(project):
    result = run("check", "--diff", "--stdin-filename", "eval.py", "-", input=LEGACY)
    assert result.exit_code == 1
    assert result.stdout.startswith("--- eval.py\n+++ eval.py\n@@ ")
    assert "+@torch.no_grad()\n" in result.stdout


def test_stdin_force_exclude_passes_source_through(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["vendor"]\n')
    result = run("check", "--fix", "--force-exclude", "--stdin-filename", "vendor/lib.py", "-", input=LEGACY)
    assert result.exit_code == 0
    assert result.stdout == LEGACY
    result = run("check", "--force-exclude", "--stdin-filename", "vendor/lib.py", "-", input=LEGACY)
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")
    # Without --force-exclude an explicitly named file is checked, as on the command line.
    assert run("check", "--stdin-filename", "vendor/lib.py", "-", input=LEGACY).exit_code == 1


@pytest.mark.parametrize(
    "args,message",
    [
        (("-", "other.py"), "error: `-` (read from stdin) cannot be combined with other paths\n"),
        (("--stdin-filename", "a.py", "other.py"), "error: --stdin-filename is only used with `-` (reading from stdin)\n"),
    ],
)
def test_stdin_usage_errors(project, args, message):
    (project / "other.py").write_text("x = 1\n")
    result = run("check", *args, input=LEGACY)
    assert result.exit_code == 2
    assert result.stderr == message


def test_stdin_fix_through_real_pipes(project):
    proc = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--fix", "--stdin-filename", "eval.py", "-"],
        input=LEGACY.encode(),
        capture_output=True,
    )
    assert proc.returncode == 0
    assert proc.stdout == LEGACY_FIXED.encode()
    assert proc.stderr == b"Found 2 problems (2 fixed, 0 remaining).\n"


# The console script after a check: the report flushed whole, the exit code kept, and
# the interpreter's teardown (atexit handlers, freeing the trees) skipped.
_COMMAND = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
    "from gradlint.cli import run\n"
    "sys.argv = ['gradlint', *sys.argv[1:]]\n"
    "run()\n"
)


def test_console_script_ends_a_check_without_teardown(project):
    (project / "eval.py").write_text(LEGACY * 300, encoding="utf-8")
    args = ["check", "--no-cache", "--output-format", "json", "eval.py"]
    proc = subprocess.run([sys.executable, "-c", _COMMAND, *args], capture_output=True)
    expected = run(*args)
    assert proc.returncode == expected.exit_code == 1
    # More than a pipe holds: all of it arrives, as `main` writes it.
    assert len(proc.stdout) > 65536
    assert proc.stdout.decode() == expected.stdout
    assert proc.stderr == b""


@pytest.mark.parametrize("args", [["explain", "GL001"], ["check", "--select", "GL999", "eval.py"]])
def test_console_script_exits_as_usual_otherwise(project, args):
    # Another command, and a check that stops at a usage error, run the teardown.
    (project / "eval.py").write_text(LEGACY, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", _COMMAND, *args], capture_output=True)
    assert proc.returncode == run(*args).exit_code
    assert proc.stderr.decode().endswith("teardown ran\n")


# -- progress -----------------------------------------------------------------


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_wanted_only_on_a_tty_for_many_files():
    assert progress.wanted(progress.MIN_FILES, FakeTTY())
    assert not progress.wanted(progress.MIN_FILES - 1, FakeTTY())
    assert not progress.wanted(progress.MIN_FILES, io.StringIO())
    assert not progress.wanted(progress.MIN_FILES, FakeTTY(), quiet=True)


def test_progress_draws_done_total_elapsed_then_erases():
    now = [100.0]
    stream = FakeTTY()
    bar = progress.Progress(4, stream, clock=lambda: now[0])
    bar.advance()
    now[0] += 0.05  # too soon to redraw
    bar.advance()
    now[0] += 0.2
    bar.advance()
    bar.advance()  # the last file is always drawn
    bar.close()
    draws = stream.getvalue().split("\r")[1:]
    assert draws[:-1] == [
        "[=======>                      ] 1/4 files  0.0s",
        "[======================>       ] 3/4 files  0.2s",
        "[==============================] 4/4 files  0.2s",
    ]
    assert draws[-1] == "\x1b[2K"
    assert progress.Progress(3, FakeTTY()).line(20) == "0/3 files  0.0s"  # too narrow for a bar


def test_progress_never_drawn_closes_silently():
    stream = FakeTTY()
    progress.Progress(10, stream).close()
    assert stream.getvalue() == ""


pty = pytest.importorskip("pty") if os.name == "posix" else None


def _run_on_tty(args, cwd, tty_stdout: bool, tty_stderr: bool, env=None):
    """Run with stdout and/or stderr on a pseudo-terminal; (terminal text, stdout, stderr) back."""
    master, slave = pty.openpty()
    out_file, err_file = cwd / ".out", cwd / ".err"
    full_env = {**os.environ, "COLUMNS": "100", **(env or {})}
    full_env.pop("GRADLINT_OUTPUT_FORMAT", None)
    with open(out_file, "wb") as out, open(err_file, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gradlint", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=slave if tty_stdout else out,
            stderr=slave if tty_stderr else err,
            env=full_env,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=120)
    os.close(master)
    terminal = b"".join(chunks).decode().replace("\r\n", "\n")
    return proc.returncode, terminal, out_file.read_text(), err_file.read_text()


@pytest.fixture
def many_files(project):
    for i in range(progress.MIN_FILES + 10):
        (project / f"m{i:02d}.py").write_text("x = 1\n" if i else LEGACY)
    return project


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_progress_bar_on_a_terminal_and_never_in_a_pipe(many_files):
    n = progress.MIN_FILES + 10
    code, terminal, stdout, _ = _run_on_tty(["check", "."], many_files, tty_stdout=False, tty_stderr=True)
    assert code == 1
    assert re.search(rf"\r\[=+\] {n}/{n} files  \d+\.\ds\r\x1b\[2K$", terminal), terminal[-200:]
    assert "m00.py" + GL001_LINE in stdout
    assert "\r" not in stdout and "files" not in stdout
    # stderr not a terminal: no bar, only what a pipe should get.
    code, _, stdout_piped, stderr = _run_on_tty(["check", "."], many_files, tty_stdout=True, tty_stderr=False)
    assert stderr == ""
    # -q: no bar even on a terminal.
    _, terminal, _, _ = _run_on_tty(["check", "-q", "."], many_files, tty_stdout=False, tty_stderr=True)
    assert terminal == ""


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_migrate_shows_the_progress_bar_of_check(many_files):
    n = progress.MIN_FILES + 10
    code, terminal, stdout, _ = _run_on_tty(["migrate", "--check", "."], many_files, tty_stdout=False, tty_stderr=True)
    assert code == 1
    assert re.search(rf"\r\[=+\] {n}/{n} files  \d+\.\ds\r\x1b\[2K$", terminal), terminal[-200:]
    assert stdout == "m00.py\n"
    # stderr not a terminal: no bar.
    code, _, stdout, stderr = _run_on_tty(["migrate", "--check", "."], many_files, tty_stdout=True, tty_stderr=False)
    assert code == 1 and stderr == ""
    # Below progress.MIN_FILES files: none on a terminal either.
    _, terminal, _, _ = _run_on_tty(["migrate", "--check", "m00.py", "m01.py"], many_files, tty_stdout=False, tty_stderr=True)
    assert terminal == ""


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_terminal_gets_full_format_in_colour_unless_no_color(project):
    (project / "legacy.py").write_text(LEGACY)
    _, terminal, _, _ = _run_on_tty(["check", "legacy.py"], project, tty_stdout=True, tty_stderr=True)
    assert "\x1b[" in terminal
    plain = re.sub(r"\x1b\[[0-9;]*m", "", terminal)
    assert plain.startswith("GL001 [*] `volatile=True` has been ignored")
    assert " --> legacy.py:6:17\n" in plain
    _, no_color, _, _ = _run_on_tty(["check", "legacy.py"], project, tty_stdout=True, tty_stderr=True, env={"NO_COLOR": "1"})
    assert "\x1b[" not in no_color
    assert no_color == plain
    # An explicit format wins over the terminal default.
    _, concise, _, _ = _run_on_tty(["check", "--output-format", "concise", "legacy.py"], project, True, True)
    assert concise.startswith("legacy.py" + GL001_LINE)


@pytest.mark.parametrize(
    "args, env, coloured",
    [
        ([], {}, False),  # not a terminal
        (["--color", "always"], {}, True),
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # the flag wins
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {"FORCE_COLOR": ""}, False),
        ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
        (["--color", "auto"], {"FORCE_COLOR": "1"}, True),
    ],
)
def test_color_flag_and_force_color(project, monkeypatch, args, env, coloured):
    (project / "legacy.py").write_text(LEGACY)
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # color=True: the runner keeps what gradlint writes, escape codes included.
    result = CliRunner().invoke(main, ["check", "--output-format", "full", *args, "legacy.py"], color=True)
    assert result.exit_code == 1
    assert ("\x1b[" in result.stdout) is coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", result.stdout).startswith("GL001 [*] `volatile=True` has been ignored")


def test_color_never_colours_a_report_file(project):
    (project / "legacy.py").write_text(LEGACY)
    result = CliRunner().invoke(main, ["check", "--output-format", "full", "--color", "always", "-o", "out.txt", "legacy.py"], color=True)
    assert result.exit_code == 1
    assert "\x1b[" not in (project / "out.txt").read_text()
