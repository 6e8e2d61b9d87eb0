"""A run forked from the fork server reports what a fresh process reports.

Each program runs both ways, in a fresh ``python -I`` child and forked from a
server that imported torch already (``gradlint.verify.forkserver``), and the
whole outcomes are compared: status, exit status, the harness's result
(outcome, globals, warnings, exceptions, limits), stdout and stderr; only
timings and the run's temporary directory's name are left out. The programs
cover normal ends, errors, warnings (torch's and the program's), exits,
crashes, a timeout, the memory and output limits, and what a program can see
of its process (environment, descriptors, signals, limits, modules, torch's
threads). Runs without torch (``"torch": False``) use a server that did not
import it: the process handling is the same, and they cost no import.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import sys

import pytest

from harness import ROOT
from gradlint.verify import forkserver, sandbox

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not sys.platform.startswith("linux"), reason="the fork server is used on Linux"
)
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


@pytest.fixture
def servers():
    """The process's servers (shared with the other tests: a server with torch
    costs an import of torch), after the test."""
    before = _served()
    yield forkserver._servers
    assert _served() > before, "no fork server served the runs"


def _served():
    return sum(s._next_id for s in forkserver._servers.values() if s is not None)


@pytest.fixture
def own_servers(monkeypatch):
    """A registry of the test's own, for a test that ends its server; ended after it."""
    monkeypatch.setattr(forkserver, "_servers", {})
    yield forkserver._servers
    for server in list(forkserver._servers.values()):
        if server is not None:
            server.close()


def _normal(value):
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"gradlint-verify-\w+", "gradlint-verify-RUN", value)
    return value


def _outcome(code, torch, forked, monkeypatch, **limits):
    monkeypatch.setattr(sandbox, "FORK_SERVER", forked)
    config = {"mode": "script", "script": "snippet.py", "torch": torch}
    outcome = sandbox.run(config, {"snippet.py": code}, sandbox.Limits(**{"timeout": 20.0, **limits}))
    seen = {k: v for k, v in vars(outcome).items() if k != "seconds"}
    return _normal(seen)


def both(code, monkeypatch, torch=False, **limits):
    fresh = _outcome(code, torch, False, monkeypatch, **limits)
    forked = _outcome(code, torch, True, monkeypatch, **limits)
    assert forked == fresh
    return forked


PROGRAMS = {
    "prints": ("print('hello')\nx = [1, 2]\n", {}),
    "raises": ("x = 1\nraise ValueError('boom')\n", {}),
    "warns": ("import warnings\nwarnings.warn('careful')\nwarnings.warn('again', DeprecationWarning)\n", {}),
    "exits": ("import sys\nprint('bye')\nsys.exit(4)\n", {}),
    "os_exit": ("import os\nprint('before', flush=True)\nos._exit(3)\n", {}),
    "killed": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", {}),
    "kills_its_group": ("import os, signal\nos.killpg(0, signal.SIGKILL)\n", {}),
    "reads_stdin": ("name = input()\n", {}),
    "forks_and_child_finishes": ("import os\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n    os._exit(3)\n", {}),
    "ignores_sigterm": (
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)\n",
        {"timeout": 1.0},
    ),
    "memory_bomb": ("keep = []\nwhile True:\n    keep.append(bytearray(50 << 20))\n", {"memory": 256 << 20}),
    "output_bomb": ("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n", {"output": 1 << 20}),
    "atexit": ("import atexit\natexit.register(print, 'at exit')\nprint('main')\n", {}),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forked_run_reports_what_a_fresh_run_reports(name, servers, monkeypatch):
    code, limits = PROGRAMS[name]
    monkeypatch.setattr(sandbox, "GRACE", 0.5)  # what a run that ignores SIGTERM waits for, twice
    out = both(code, monkeypatch, **limits)
    expected = {
        "prints": ("finished", 0, {"kind": "completed"}),
        "raises": ("finished", 0, {"kind": "exception", "types": ["ValueError", "Exception"], "message": "boom", "line": 2}),
        "warns": ("finished", 0, {"kind": "completed"}),
        "exits": ("finished", 0, {"kind": "exit", "code": 4, "message": None}),
        "os_exit": ("crashed", 3, None),
        "killed": ("crashed", -signal.SIGKILL, None),
        "kills_its_group": ("crashed", -signal.SIGKILL, None),
        "reads_stdin": ("finished", 0, {"kind": "exception", "types": ["EOFError", "Exception"], "message": "EOF when reading a line", "line": 1}),
        "forks_and_child_finishes": ("crashed", 3, None),
        "ignores_sigterm": ("timeout", -signal.SIGKILL, None),
        "memory_bomb": ("finished", 0, "out-of-memory"),
        "output_bomb": ("finished", 0, {"kind": "exception", "types": ["OSError", "Exception"], "message": "[Errno 27] File too large", "line": 3}),
        "atexit": ("finished", 0, {"kind": "completed"}),
    }[name]
    status, returncode, outcome = expected
    assert (out["status"], out["returncode"]) == (status, returncode)
    payload = out["payload"] or {}
    if isinstance(outcome, str):
        assert payload["outcome"]["kind"] == outcome
    elif outcome is not None:
        assert payload["outcome"] == outcome
    if name == "warns":
        warned = [(w["category"], w["message"], w["line"]) for w in payload["warnings"]]
        assert warned == [("UserWarning", "careful", 2), ("DeprecationWarning", "again", 3)]
        assert out["stderr_tail"].endswith("snippet.py:3: DeprecationWarning: again\n  warnings.warn('again', DeprecationWarning)\n")
    if name == "atexit":
        assert out["stdout"] == "main\nat exit\n"


# What a program can see of its process, as JSON on stdout: the same in a fresh
# and in a forked child, but for who its parent is.
STATE = r'''
import gc, json, os, resource, signal, sys, tempfile, threading, warnings

def fd_target(fd):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target.split(":")[0] if ":[" in target else target

state = {
    "parent_is_gradlint": os.getppid() == GRADLINT,
    "argv": [os.path.basename(a) for a in sys.argv],
    "orig_argv": [os.path.basename(a) for a in sys.orig_argv],
    "flags": repr(sys.flags),
    "path": sys.path,
    "environ": sorted(os.environ.items()),
    "cwd_is_home": os.getcwd() == os.environ["HOME"],
    "tempdir_is_tmpdir": tempfile.gettempdir() == os.environ["TMPDIR"],
    "session_leader": os.getsid(0) == os.getpid() == os.getpgid(0),
    "fds": {fd: fd_target(fd) for fd in sorted(os.listdir("/proc/self/fd"), key=int)},
    "signals": {s.name: getattr(signal.getsignal(s), "__name__", repr(signal.getsignal(s))) for s in signal.valid_signals() if isinstance(s, signal.Signals)},
    # RLIMIT_DATA is set at what the process occupies plus the run's memory: a
    # forked child occupies about 1 MiB more (the server's loop), and may take as much.
    "limits": {n: resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_") and n != "RLIMIT_DATA"},
    "modules": sorted(sys.modules),
    "main": sys.modules["__main__"].__dict__.get("__file__"),
    "threads": threading.active_count(),
    "gc": [gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()],
    "warning_filters": repr(warnings.filters),
    "streams": [(s.encoding, s.errors, s.line_buffering) for s in (sys.stdin, sys.stdout, sys.stderr)],
    "stdin": sys.stdin.read(),
    "umask": os.umask(0o22),
}
if "torch" in sys.modules:
    import torch

    state["grad"] = torch.is_grad_enabled()
    state["default_threads"] = [torch.get_num_threads(), torch.get_num_interop_threads()]
    # Parallel work in the child, after setting the pool's size: what a fork would
    # break if the server had started a pool (OpenMP's, or numpy's BLAS).
    torch.set_num_threads(2)
    a = torch.arange(256.0 * 256).reshape(256, 256) / 65536
    state["matmul"] = (a @ a).sum().item()
    state["threads_after"] = torch.get_num_threads()
    import numpy

    b = numpy.arange(256.0 * 256).reshape(256, 256) / 65536
    state["numpy_matmul"] = float((b @ b).sum())
print(json.dumps(state))
'''


@pytest.mark.parametrize("torch", [False, pytest.param(True, marks=needs_torch)])
def test_forked_child_is_what_a_fresh_child_is(torch, servers, monkeypatch):
    # The process limit is set where Linux enforces it (not for root): here, always.
    monkeypatch.setattr(sandbox, "_process_limit", lambda: 4321)
    code = f"GRADLINT = {os.getpid()}\n" + STATE
    fresh = _outcome(code, torch, False, monkeypatch)
    forked = _outcome(code, torch, True, monkeypatch)
    assert fresh["status"] == forked["status"] == "finished", (fresh["stderr_tail"], forked["stderr_tail"])
    seen_fresh, seen_forked = json.loads(fresh["stdout"]), json.loads(forked["stdout"])
    assert (seen_fresh.pop("parent_is_gradlint"), seen_forked.pop("parent_is_gradlint")) == (True, False)
    assert seen_forked == seen_fresh
    for seen in (fresh, forked):
        # Compared above; they hold the parent's pid, and "true" is a byte shorter than "false".
        seen.pop("stdout"), seen.pop("stdout_bytes"), seen["payload"].pop("globals")
    assert forked == fresh
    # No warning from torch (or OpenMP) about a fork, or about the thread pools.
    assert forked["stderr_tail"] == ""
    assert seen_forked["session_leader"] and seen_forked["cwd_is_home"] and seen_forked["tempdir_is_tmpdir"]
    assert seen_forked["limits"]["RLIMIT_NPROC"] == [4321, 4321]
    assert "_harness_serve" not in seen_forked["modules"] and seen_forked["gc"][2] == 0
    if torch:
        assert seen_forked["threads_after"] == 2


@needs_torch
def test_torch_warnings_errors_and_limits_are_the_same(servers, monkeypatch):
    # Torch's warnings and errors, then a timeout: the harness writes what it
    # measured until it was told to stop.
    code = (
        "import time, warnings\n"
        "import torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "y = x * 2\n"
        "print(y.grad)\n"
        "warnings.warn('mine')\n"
        "z = x.exp()\n"
        "z.add_(1)\n"
        "try:\n"
        "    z.sum().backward()\n"
        "except RuntimeError as exc:\n"
        "    print(str(exc)[:60], flush=True)\n"
        "while True:\n"
        "    time.sleep(0.05)\n"
    )
    out = both(code, monkeypatch, torch=True, timeout=1.0)
    payload = out["payload"]
    assert (out["status"], payload["status"], out["returncode"]) == ("timeout", "terminated", 0)
    assert [(w["category"], w["line"]) for w in payload["warnings"]] == [("UserWarning", 5), ("UserWarning", 6)]
    assert [(e["types"][0], e["line"]) for e in payload["exceptions"]] == [("RuntimeError", 10)]
    assert out["stdout"] == "None\none of the variables needed for gradient computation has bee\n"
    assert "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed" in out["stderr_tail"]
    # The memory limit counts from what Python and torch occupy, in both.
    out = both("import torch\nx = torch.ones(1 << 28)\n", monkeypatch, torch=True, memory=256 << 20)
    assert out["payload"]["outcome"]["kind"] == "out-of-memory" and out["payload"]["limits"]["memory"] == 256 << 20


@needs_torch
def test_verify_reports_the_same_forked_and_fresh(servers, monkeypatch):
    from gradlint.config import Settings
    from gradlint.verify import report
    from gradlint.verify.scripts import Options, verify_files

    path = ROOT / "fixtures" / "GL001" / "verify" / "volatile_eval.py"
    reports = []
    for forked in (False, True):
        monkeypatch.setattr(sandbox, "FORK_SERVER", forked)
        results = verify_files([path], Settings(cwd=ROOT), Options(workers=1, unsafe_fixes=True))
        text = re.sub(r"\(code [\d.]+ s, process [\d.]+ s\)", "(TIMES)", report.files_text(results))
        text = re.sub(r"\([\d.]+ s of runs\)", "(TIME)", text)
        reports.append((_normal(json.loads(report.files_json(results))), text))
    assert reports[1] == reports[0]
    assert "  19:18 GL001 CONFIRMED" in reports[0][1].splitlines()


@pytest.mark.parametrize(
    "torch, code",
    [
        (False, "import random\nprint(random.random())\n"),
        pytest.param(True, "import random, torch\nprint(random.random(), torch.initial_seed(), torch.rand(1).item())\n", marks=needs_torch),
    ],
)
def test_unseeded_generators_differ_between_forked_runs(torch, code, servers, monkeypatch):
    # A fresh process seeds `random` and torch's generator from the OS; so must
    # each fork, or two unseeded runs would agree where fresh ones do not.
    draws = [_outcome(code, torch, True, monkeypatch)["stdout"].split() for _ in range(2)]
    assert all(a != b for a, b in zip(*draws)), draws


def test_a_dead_server_hands_the_run_to_a_fresh_process(own_servers, monkeypatch):
    # The program ends the server that forked it (a fresh run's parent is this process, left alone).
    code = (
        "import os, signal\n"
        f"if os.getppid() != {os.getpid()}:\n"
        "    os.kill(os.getppid(), signal.SIGKILL)\n"
        "print('done')\n"
    )
    out = _outcome(code, False, True, monkeypatch)
    assert (out["status"], out["stdout"]) == ("finished", "done\n")
    # The dead server is not started again: the runs of its kind are fresh from now on.
    assert list(own_servers.values()) == [None]
    out = _outcome("import os\nprint(os.getppid())\n", False, True, monkeypatch)
    assert out["stdout"] == f"{os.getpid()}\n"


def test_a_server_that_does_not_become_ready_leaves_the_runs_to_fresh_processes(own_servers, monkeypatch):
    monkeypatch.setattr(forkserver, "READY_WITHIN", 0.0)
    out = _outcome("import os\nprint(os.getppid())\n", False, True, monkeypatch)
    assert (out["status"], out["stdout"]) == ("finished", f"{os.getpid()}\n")
    assert list(own_servers.values()) == [None]


def test_a_process_forked_from_gradlint_does_not_share_its_servers(servers, monkeypatch):
    # A worker forked from gradlint would send requests whose replies this
    # process's reader thread takes: it starts servers of its own instead.
    assert _outcome("print(1)\n", False, True, monkeypatch)["stdout"] == "1\n"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.write(write, str(len(forkserver._servers)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 16) == b"0" and forkserver._servers
    os.close(read)


@pytest.mark.parametrize("chosen, forked", [("0", False), ("1", True), ("", True)])
def test_the_environment_chooses_fresh_or_forked_runs(chosen, forked, own_servers, monkeypatch):
    monkeypatch.setenv("GRADLINT_VERIFY_FORK", chosen)
    monkeypatch.setattr(sandbox, "FORK_SERVER", None)
    out = sandbox.run({"mode": "script", "script": "s.py", "torch": False}, {"s.py": "import os\nprint(os.getppid())\n"})
    assert (out.stdout != f"{os.getpid()}\n") is forked
    assert bool(own_servers) is forked
