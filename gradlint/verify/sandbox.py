"""Run the harness in a sandboxed subprocess and collect what came back.

Each run is a separate ``python -I`` process (no user site, no PYTHON*
variables, not the current directory on ``sys.path``) started in a new
session, in a fresh temporary working directory that also serves as HOME and
TMPDIR, with an environment reduced to what torch needs. Its stdout and stderr
go to files (a snippet printing megabytes cannot fill a pipe and hang), whose
size is capped with RLIMIT_FSIZE; memory is capped with RLIMIT_DATA on Linux
(RLIMIT_AS elsewhere, see ``_harness``); on Linux its processes with
RLIMIT_NPROC (which Linux does not enforce for root); a wall-clock timeout
ends it with SIGTERM, which lets the harness write what it measured so far,
then SIGKILL for the whole process group, which also ends whatever it forked.
The working directory lies ``CONTAINED_LEVELS`` levels below the run's
temporary directory, so that relative paths climbing out of it
(``../../data/out.pt``, written by a script that expects its own directory
as the current one) land inside that directory, and are removed with it.

On Linux a run's process is forked from a server that has imported torch
already (``forkserver``), and then made what a fresh process is, since
importing torch is most of what a run costs; elsewhere, when
``GRADLINT_VERIFY_FORK=0``, and when the server is gone, it is a fresh
``python -I`` process. Either way the run reports the same.

This contains accidents (endless loops, memory bombs, fork bombs, stray
files, exits), not attacks: the code runs with the user's permissions.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from gradlint.verify import forkserver

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]

GiB = 1 << 30
MiB = 1 << 20

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY = 4 * GiB
DEFAULT_OUTPUT = 64 * MiB
# How much of stdout is read back to compare runs, and of stderr to explain a crash.
STDOUT_KEPT = 1 * MiB
STDERR_KEPT = 8 * 1024
# Time the harness gets after SIGTERM to write its partial result.
GRACE = 3.0
# Time allowed for starting Python and importing torch, before the timeout
# proper starts: on a loaded machine the import alone can take many seconds.
STARTUP = 180.0
_POLL = 0.05
# Processes and threads a run may add to those the user already has (RLIMIT_NPROC
# counts them all, per user): torch alone starts a thread per core.
PROCESS_BUDGET = 512
# How many ``..`` a relative path may climb from the working directory and still
# land in the run's temporary directory.
CONTAINED_LEVELS = 5

# Environment variables passed through: what torch and its libraries read.
_PASS_ENV = (
    "PATH",
    "LD_LIBRARY_PATH",
    "SYSTEMROOT",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)


@dataclass(frozen=True)
class Limits:
    timeout: float = DEFAULT_TIMEOUT
    # Bytes the snippet may add to what Python and torch occupy; None: no limit.
    memory: Optional[int] = DEFAULT_MEMORY
    output: int = DEFAULT_OUTPUT


@dataclass
class RunOutcome:
    """One subprocess run, as the parent saw it."""

    # "finished": the harness wrote its result; "timeout": killed after the
    # timeout (``payload`` may hold what was measured until then); "crashed":
    # the process ended without a result (os._exit, a signal, a fatal error).
    status: str
    payload: Optional[Dict[str, Any]]
    returncode: Optional[int]
    stdout: str
    stdout_bytes: int
    stderr_tail: str
    seconds: float
    limits: Limits = field(default_factory=Limits)

    @property
    def output_limited(self) -> bool:
        return self.stdout_bytes >= self.limits.output

    def crash_reason(self) -> str:
        rc = self.returncode
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            reason = f"killed by {name}"
        elif rc is not None:
            reason = f"exited with status {rc} before finishing (os._exit or a fatal error)"
        else:
            reason = "ended without a result"
        last = [line for line in self.stderr_tail.splitlines() if line.strip()]
        if last:
            reason += f"; stderr: {last[-1].strip()[:200]}"
        return reason


# The harness and the siblings it imports by their own names (``_harness.py``).
HARNESS_FILES = ("_harness.py", "_harness_values.py", "_harness_trace.py", "_harness_serve.py")

# Whether runs are forked from a fork server. None: where the platform makes it
# safe, Linux (on macOS a fork without exec is unsafe once system frameworks
# are loaded, which torch does; Windows has no fork), unless the environment
# says GRADLINT_VERIFY_FORK=0 (or =1, to use it wherever os.fork exists).
FORK_SERVER: Optional[bool] = None


def _use_fork_server() -> bool:
    if not hasattr(os, "fork"):
        return False
    if FORK_SERVER is not None:
        return FORK_SERVER
    chosen = os.environ.get("GRADLINT_VERIFY_FORK", "")
    if chosen in ("0", "1"):
        return chosen == "1"
    return sys.platform.startswith("linux")


def _environment(home: str, tmp: str) -> Dict[str, str]:
    env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
    env.update(HOME=home, TMPDIR=tmp, TEMP=tmp, TMP=tmp, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    return env


def _import_path() -> List[str]:
    """Our ``sys.path`` minus the current directory, for the child to append:
    ``-I`` ignores PYTHONPATH, yet torch may only be importable through it."""
    cwd = os.getcwd()
    out = []
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == cwd or not os.path.exists(entry):
            continue
        out.append(entry)
    return out


def _read_head(path: str, limit: int) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit)
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def _read_tail(path: str, limit: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            data = fh.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def _killpg(proc: "Union[subprocess.Popen, forkserver.ForkedRun]", sig: int) -> None:
    if hasattr(os, "killpg"):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    elif proc.poll() is None:  # pragma: no cover - Windows
        proc.kill()


def _remove_tree(path: str) -> None:
    def onerror(func: Callable[..., Any], p: str, _exc: Any) -> None:
        try:
            os.chmod(p, 0o700)
            func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=onerror)


def run(
    config: Mapping[str, Any], files: Mapping[str, str], limits: Limits = Limits(), encoding: str = "utf-8"
) -> RunOutcome:
    """Run the harness with ``config`` in a fresh directory holding ``files``
    (name -> text, written in ``encoding``: the one the user's file was read in).

    ``config["script"]``, when set, names one of ``files``; it is replaced by
    that file's absolute path.
    """
    server = _fork_server(bool(config.get("torch", True))) if _use_fork_server() else None
    if server is not None:
        try:
            return _run_once(config, files, limits, encoding, server)
        except forkserver.ServerLost:
            forkserver.drop(server)  # and the run starts again, fresh
    return _run_once(config, files, limits, encoding, None)


def _fork_server(torch: bool) -> Optional[forkserver.ForkServer]:
    """The server whose children are what a fresh child would be now: one per
    import path and environment, which the server imported torch with."""
    package = resources.files("gradlint.verify")
    if not (isinstance(package, os.PathLike) and all(os.path.isfile(os.path.join(package, n)) for n in HARNESS_FILES)):
        return None  # gradlint runs from a zip: the harness is extracted per run
    harness = os.path.join(package, HARNESS_FILES[0])
    sys_path = _import_path()
    key = (sys.executable, harness, torch, tuple(sys_path), tuple(sorted(_environment("", "").items())))
    return forkserver.get(key, harness, torch, sys_path, lambda home: _environment(home, home))


def _run_once(
    config: Mapping[str, Any],
    files: Mapping[str, str],
    limits: Limits,
    encoding: str,
    server: Optional[forkserver.ForkServer],
) -> RunOutcome:
    top = tempfile.mkdtemp(prefix="gradlint-verify-")
    try:
        work = os.path.join(top, *["up"] * (CONTAINED_LEVELS - 1), "work")
        tmp = os.path.join(top, "tmp")
        os.makedirs(work)
        os.mkdir(tmp)
        for name, text in files.items():
            with open(os.path.join(work, name), "w", encoding=encoding, newline="") as fh:
                fh.write(text)
        cfg = dict(config)
        if cfg.get("script"):
            cfg["script"] = os.path.join(work, cfg["script"])
        cfg.update(
            result=os.path.join(top, "result.json"),
            started=os.path.join(top, "started"),
            sys_path=_import_path(),
            memory_limit=limits.memory,
            output_limit=limits.output,
        )
        config_path = os.path.join(top, "config.json")
        with open(config_path, "w", encoding="utf-8") as fh:
            json.dump(cfg, fh)
        out_path, err_path = os.path.join(top, "stdout"), os.path.join(top, "stderr")
        with harness_path_file() as harness, open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            proc: Union[subprocess.Popen, forkserver.ForkedRun]
            if server is not None:
                proc = server.start([harness, config_path], work, _environment(work, tmp), out_path, err_path, _process_limit())
            else:
                proc = subprocess.Popen(
                    [sys.executable, "-I", str(harness), config_path],
                    cwd=work,
                    env=_environment(work, tmp),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
                _limit_processes(proc.pid)
            timed_out = not _wait(proc, cfg["started"], limits.timeout)
            if timed_out:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=GRACE)
                except subprocess.TimeoutExpired:
                    _killpg(proc, signal.SIGKILL)
                    proc.wait()
            seconds = time.monotonic() - start
            # Whatever the snippet started and left behind goes too.
            _killpg(proc, signal.SIGKILL)
        payload = None
        try:
            with open(cfg["result"], encoding="utf-8") as fh:
                payload = json.load(fh)
        except (OSError, ValueError):
            payload = None
        if timed_out:
            status = "timeout"
        elif payload is not None and payload.get("status") in ("finished", "setup-error"):
            status = "finished"
        else:
            status = "crashed"
        return RunOutcome(
            status=status,
            payload=payload,
            returncode=proc.returncode,
            stdout=_read_head(out_path, STDOUT_KEPT),
            stdout_bytes=os.path.getsize(out_path),
            stderr_tail=_read_tail(err_path, STDERR_KEPT),
            seconds=seconds,
            limits=limits,
        )
    finally:
        _remove_tree(top)


def _limit_processes(pid: int) -> None:
    """Cap what a fork bomb can start: RLIMIT_NPROC on the run's process (its
    children inherit it). Set before the harness has run any of the file:
    importing takes far longer. (A forked run sets it on itself, first.)"""
    limit = _process_limit()
    if limit is None:
        return
    try:
        resource.prlimit(pid, resource.RLIMIT_NPROC, (limit, limit))
    except (OSError, ValueError):
        pass  # the run already ended, or the limit cannot be lowered here


def _process_limit() -> Optional[int]:
    """RLIMIT_NPROC for a run: what the user has now plus PROCESS_BUDGET."""
    if resource is None or not hasattr(resource, "prlimit") or os.geteuid() == 0:
        return None  # Linux only; and Linux does not enforce the limit for root
    tasks = _user_tasks(os.getuid())
    return None if tasks is None else tasks + PROCESS_BUDGET


def _user_tasks(uid: int) -> Optional[int]:
    """The processes and threads of ``uid`` (what RLIMIT_NPROC counts), from /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    total = 0
    for entry in entries:
        if not entry.isdigit():
            continue
        owner = threads = None
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith("Uid:"):
                        owner = int(line.split()[1])
                    elif line.startswith("Threads:"):
                        threads = int(line.split()[1])
                        break
        except (OSError, ValueError, IndexError):
            continue
        if owner == uid and threads:
            total += threads
    return total


def _wait(proc: "Union[subprocess.Popen, forkserver.ForkedRun]", started: str, timeout: float) -> bool:
    """Wait for the process: up to STARTUP for the harness to say it is
    ready, then ``timeout`` for the code under test. False on a timeout."""
    deadline = time.monotonic() + STARTUP
    while not os.path.exists(started):
        if proc.poll() is not None:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(_POLL)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


class harness_path_file:
    """The harness as a real file beside its siblings: the package's own files,
    or copies in a temporary directory when gradlint runs from a zip."""

    def __enter__(self) -> str:
        package = resources.files("gradlint.verify")
        self._tmp: Optional[str] = None
        if isinstance(package, os.PathLike) and all(os.path.isfile(os.path.join(package, n)) for n in HARNESS_FILES):
            return os.path.join(package, HARNESS_FILES[0])
        self._tmp = tempfile.mkdtemp(prefix="gradlint-harness-")
        for name in HARNESS_FILES:
            with open(os.path.join(self._tmp, name), "wb") as out:
                out.write(package.joinpath(name).read_bytes())
        return os.path.join(self._tmp, HARNESS_FILES[0])

    def __exit__(self, *exc: Any) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)


def run_all(
    jobs: Sequence[Callable[[], RunOutcome]],
    workers: int,
    on_done: Optional[Callable[[int, RunOutcome], None]] = None,
) -> List[RunOutcome]:
    """Run independent sandboxed runs, ``workers`` at a time, in order.

    ``on_done(index, outcome)`` is called for each run in order, as soon as it and
    every run before it have finished (so that a report can be printed as it goes)."""
    out: List[RunOutcome] = []
    if workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            out.append(job())
            if on_done is not None:
                on_done(i, out[-1])
        return out
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(job) for job in jobs]
        try:
            for i, future in enumerate(futures):
                out.append(future.result())
                if on_done is not None:
                    on_done(i, out[-1])
        except BaseException:
            for future in futures:  # do not start runs nobody will read
                future.cancel()
            raise
    return out


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))
