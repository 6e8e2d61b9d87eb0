"""The sandbox that runs user code for ``gradlint verify``: whatever the code
does, the run ends with a clear status and leaves nothing behind.

These runs skip importing torch (``"torch": False``): what is tested is the
process handling, which is the same with torch.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time

import pytest

from gradlint.verify import sandbox
from gradlint.verify.runs import RunView

posix = pytest.mark.skipif(os.name != "posix", reason="process groups and rlimits are POSIX")


def run(code, **limits):
    limits = sandbox.Limits(**{"timeout": 5.0, **limits})
    outcome = sandbox.run({"mode": "script", "script": "snippet.py", "torch": False}, {"snippet.py": code}, limits)
    return outcome, RunView(outcome).status()


def test_normal_run_reports_output_and_completion():
    outcome, status = run("print('hello')\n")
    assert (outcome.status, status.kind, outcome.stdout) == ("finished", "completed", "hello\n")


@posix
def test_endless_loop_times_out_within_the_timeout():
    start = time.monotonic()
    outcome, status = run("while True:\n    pass\n", timeout=1.0)
    assert outcome.status == "timeout" and status.text == "TIMEOUT after 1 s"
    assert time.monotonic() - start < 1.0 + sandbox.GRACE + 10
    # The harness answered SIGTERM with what it had measured until then.
    assert outcome.payload["status"] == "terminated"


@posix
def test_endless_loop_that_ignores_sigterm_is_killed():
    code = "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass\n"
    outcome, status = run(code, timeout=1.0)
    assert outcome.status == "timeout" and outcome.returncode == -signal.SIGKILL


@posix
def test_os_exit_is_a_crash():
    outcome, status = run("import os\nprint('before', flush=True)\nos._exit(3)\n")
    assert status.kind == "crashed"
    assert status.text == "CRASHED: exited with status 3 before finishing (os._exit or a fatal error)"
    assert outcome.stdout == "before\n"


@posix
def test_self_kill_is_a_crash():
    outcome, status = run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert status.text == "CRASHED: killed by SIGKILL"


@posix
def test_segfault_is_a_crash():
    outcome, status = run("import ctypes\nctypes.string_at(0)\n")
    assert status.text.startswith("CRASHED: killed by SIGSEGV")


def test_sys_exit_is_an_exit_status():
    _, status = run("import sys\nsys.exit(4)\n")
    assert (status.kind, status.text) == ("exit", "exited with status 4")
    _, status = run("import sys\nsys.exit()\n")
    assert status.kind == "completed"


def test_exception_names_type_and_line():
    _, status = run("x = 1\nraise ValueError('boom')\n")
    assert status.text == "raised ValueError: boom at line 2"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="memory limits are enforced on Linux")
@pytest.mark.parametrize(
    "code",
    [
        "x = bytearray(64 << 30)\n",
        "keep = []\nwhile True:\n    keep.append(bytearray(50 << 20))\n",
        "keep = []\nwhile True:\n    keep.append([0] * 100000)\n",
    ],
)
def test_allocation_bomb_is_out_of_memory(code):
    outcome, status = run(code, memory=256 << 20)
    assert status.kind == "out-of-memory"
    assert status.text.startswith("CRASHED: out of memory at line ") and "(limit 256.0 MiB): MemoryError" in status.text
    assert outcome.payload["limits"]["memory_kind"] == "RLIMIT_DATA"


@posix
def test_huge_output_is_cut_at_the_limit():
    code = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    outcome, status = run(code, output=1 << 20)
    assert status.text == "CRASHED: output exceeded the limit of 1.0 MiB"
    assert outcome.stdout_bytes == 1 << 20 and len(outcome.stdout) <= sandbox.STDOUT_KEPT


def test_large_output_within_the_limit_is_kept_in_part():
    outcome, status = run("print('y' * (3 << 20))\n")
    assert status.kind == "completed"
    assert outcome.stdout_bytes == (3 << 20) + 1 and len(outcome.stdout) == sandbox.STDOUT_KEPT


def test_files_written_by_the_snippet_stay_in_its_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.txt").write_text("keep")
    code = (
        "import os, tempfile\n"
        "open('out.txt', 'w').write('x')\n"
        "open(os.path.join(os.path.dirname(__file__), 'beside.txt'), 'w').write('x')\n"
        "open(os.path.expanduser('~/home.txt'), 'w').write('x')\n"
        "tempfile.NamedTemporaryFile(delete=False).write(b'x')\n"
        "print(os.getcwd())\n"
    )
    outcome, status = run(code)
    assert status.kind == "completed"
    workdir = outcome.stdout.strip()
    assert workdir != str(tmp_path) and not os.path.exists(workdir)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_environment_is_reduced(monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    outcome, status = run("import os, sys\nprint(sorted(os.environ))\nprint(sys.flags.isolated)\n")
    env_line, isolated = outcome.stdout.splitlines()
    assert "SECRET_TOKEN" not in env_line and "PYTHONPATH" not in env_line
    assert "'HOME'" in env_line and isolated == "1"


def test_file_is_run_in_its_own_encoding():
    code = "# -*- coding: latin-1 -*-\nprint('caf\u00e9')\n"
    limits = sandbox.Limits(timeout=5.0)
    outcome = sandbox.run({"mode": "script", "script": "s.py", "torch": False}, {"s.py": code}, limits, "latin-1")
    assert outcome.stdout == "caf\u00e9\n"


@posix
def test_forked_children_do_not_write_the_result():
    # The child runs to the end of the file (where the harness writes its
    # result); the parent then dies: the run must read as the parent's crash.
    code = "import os\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n    os._exit(3)\n"
    outcome, status = run(code)
    assert status.text == "CRASHED: exited with status 3 before finishing (os._exit or a fatal error)"


def test_relative_paths_that_climb_out_of_the_working_directory_stay_in_the_run(tmp_path, monkeypatch):
    # A script that expects to run from its own directory writes ../data/out.txt;
    # here the parents of its working directory are the run's own, removed with it.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = "import os\nfor up in range(1, %d):\n    os.makedirs('../' * up + 'data', exist_ok=True)\n    open('../' * up + 'data/out.txt', 'w').write('x')\n"
    outcome, status = run(code % (sandbox.CONTAINED_LEVELS + 1))
    assert status.kind == "completed"
    assert list(tmp_path.iterdir()) == []
    # One level more reaches the directory the run was made in: the limit is real.
    outcome, status = run(code % (sandbox.CONTAINED_LEVELS + 2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


@posix
def test_processes_the_file_leaves_running_end_with_the_run():
    code = (
        "import os, time\n"
        "for _ in range(8):\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(600)\n"
        "        os._exit(0)\n"
        "print(os.getpgid(0))\n"
    )
    outcome, status = run(code)
    assert status.kind == "completed"
    group = int(outcome.stdout)
    deadline = time.monotonic() + 10
    while _group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(group)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - the group id was reused by someone else
        return False
    return True


@posix
def test_killing_its_own_process_group_does_not_reach_gradlint():
    # The run has a session of its own: "kill everything in my group" ends the run only.
    outcome, status = run("import os, signal\nos.killpg(0, signal.SIGKILL)\n")
    assert status.text == "CRASHED: killed by SIGKILL"


def test_reading_stdin_gets_end_of_file_not_a_hang():
    _, status = run("name = input()\n")
    assert status.text == "raised EOFError: EOF when reading a line at line 1"


@pytest.mark.skipif(not hasattr(sandbox.resource, "prlimit"), reason="RLIMIT_NPROC is set with prlimit (Linux)")
@pytest.mark.skipif(os.name == "posix" and os.geteuid() == 0, reason="Linux does not enforce RLIMIT_NPROC for root")
def test_fork_bomb_is_capped_and_ends_with_the_run(monkeypatch):
    monkeypatch.setattr(sandbox, "PROCESS_BUDGET", 64)
    outcome, status = run("import os\nwhile True:\n    os.fork()\n", timeout=3.0)
    # Past the cap every fork fails: the run either raises or times out, and its processes go with it.
    assert status.kind in ("exception", "timeout"), status.text
    assert "BlockingIOError" in status.text or status.text == "TIMEOUT after 3 s"


@pytest.mark.skipif(not hasattr(sandbox.resource, "prlimit"), reason="RLIMIT_NPROC is set with prlimit (Linux)")
@pytest.mark.skipif(os.name == "posix" and os.geteuid() == 0, reason="Linux does not enforce RLIMIT_NPROC for root")
def test_process_limit_is_what_the_user_has_plus_the_budget():
    outcome, status = run("print([l for l in open('/proc/self/limits') if l.startswith('Max processes')][0])\n")
    soft = int(outcome.stdout.split()[2])
    assert sandbox.PROCESS_BUDGET < soft <= sandbox._user_tasks(os.getuid()) + sandbox.PROCESS_BUDGET + 16
