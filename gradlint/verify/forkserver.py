"""Start sandboxed runs as forks of a process that has imported torch already.

A fresh harness child spends about 2 s of CPU importing torch before it runs
anything. A fork server (the harness with ``--serve``, ``_harness_serve.py``
says what it does) imports it once; each run is a child forked from it, which
then makes itself what a fresh child is (session, working directory,
environment, standard streams, process limit) before the harness runs the
file, so a run sees nothing of another and reports what a fresh child would.

From here a run's child looks like a ``subprocess.Popen``: ``pid``, ``poll``,
``wait``, ``send_signal``, ``returncode``; the sandbox waits for it, times it
out and kills its process group the same way. When the server dies (or
cannot start: torch does not import), ``ServerLost`` tells the sandbox to run
in a fresh process instead, which also reports why torch does not import.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional, Sequence

# Time a server may take to import torch before the runs go to fresh processes.
READY_WITHIN = 180.0


class ServerLost(Exception):
    """The server is gone (or never became ready): the run starts again, fresh."""


class ForkedRun:
    """A run's child, forked by the server; the parts of ``Popen`` the sandbox uses."""

    def __init__(self, server: "ForkServer", run_id: int, args: Sequence[str]) -> None:
        self._server = server
        self._id = run_id
        self.args = list(args)
        self.pid: int = 0
        self.returncode: Optional[int] = None
        self.error: Optional[str] = None
        self.lost = False

    def _check(self) -> None:
        if self.lost or self.error is not None:
            if self.pid:
                try:  # nothing will report this child's end: end it and what it started
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            raise ServerLost(self.error or "the fork server ended")

    def poll(self) -> Optional[int]:
        with self._server.changed:
            self._check()
            return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._server.changed:
            while True:
                self._check()
                if self.returncode is not None:
                    return self.returncode
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
                self._server.changed.wait(left)

    def send_signal(self, sig: int) -> None:
        # Until the server has reported the end, the child is not reaped and its pid is its own.
        with self._server.changed:
            if self.returncode is None and not self.lost and self.pid:
                try:
                    os.kill(self.pid, sig)
                except ProcessLookupError:
                    pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ForkServer:
    def __init__(self, harness: str, torch: bool, sys_path: List[str], env: Dict[str, str], home: str) -> None:
        """Start the server, ``harness --serve``, in ``home`` (its working directory,
        HOME and TMPDIR, already in ``env``) and wait until it has imported torch."""
        self.home = home
        self.changed = threading.Condition()
        self._runs: Dict[int, ForkedRun] = {}
        self._next_id = 0  # also: how many runs it was asked for
        self._write_lock = threading.Lock()
        self.alive = False
        req_r, self._requests = os.pipe()
        rep_r, rep_w = os.pipe()
        out_path, err_path = os.path.join(home, "stdout"), os.path.join(home, "stderr")
        setup = {"requests": req_r, "replies": rep_w, "torch": torch, "sys_path": sys_path, "stdout": out_path, "stderr": err_path}
        try:
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", harness, "--serve", json.dumps(setup)],
                    cwd=home,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    pass_fds=(req_r, rep_w),
                    start_new_session=True,
                )
        except OSError as exc:
            os.close(self._requests)
            os.close(rep_r)
            raise ServerLost(f"cannot start the fork server: {exc}") from None
        finally:
            os.close(req_r)
            os.close(rep_w)
        self._replies = os.fdopen(rep_r, "rb")
        with selectors.DefaultSelector() as selector:  # not select(): a process may hold fds past 1024
            selector.register(self._replies, selectors.EVENT_READ)
            ready = selector.select(READY_WITHIN)
        first = self._replies.readline() if ready else b""
        try:
            message = json.loads(first) if first else None
        except ValueError:
            message = None
        if not (isinstance(message, dict) and message.get("ready")):
            self.close()
            raise ServerLost((message or {}).get("error") or "the fork server did not start")
        self.alive = True
        threading.Thread(target=self._read, name="gradlint-forkserver", daemon=True).start()

    def start(self, argv: Sequence[str], cwd: str, env: Dict[str, str], stdout: str, stderr: str, nproc: Optional[int]) -> ForkedRun:
        """Fork a run: once this returns, the child exists and has a pid."""
        with self.changed:
            if not self.alive:
                raise ServerLost("the fork server ended")
            run = ForkedRun(self, self._next_id, argv)
            self._next_id += 1
            self._runs[run._id] = run
        request = {"id": run._id, "argv": list(argv), "cwd": cwd, "env": env, "stdout": stdout, "stderr": stderr, "nproc": nproc}
        try:
            with self._write_lock:
                data = (json.dumps(request) + "\n").encode()
                while data:
                    data = data[os.write(self._requests, data) :]
        except OSError:
            with self.changed:
                run.lost = True
            run._check()
        with self.changed:
            while not run.pid:
                run._check()
                self.changed.wait()
        return run

    def _read(self) -> None:
        for line in self._replies:
            try:
                message = json.loads(line)
            except ValueError:
                break
            with self.changed:
                run = self._runs.get(message.get("id"))
                if run is None:
                    continue
                if "pid" in message:
                    run.pid = message["pid"]
                elif "exit" in message:
                    run.returncode = message["exit"]
                    del self._runs[run._id]
                else:
                    run.error = str(message.get("error"))
                    del self._runs[run._id]
                self.changed.notify_all()
        with self.changed:
            self.alive = False
            for run in self._runs.values():
                run.lost = True
            self._runs.clear()
            self.changed.notify_all()

    def close(self) -> None:
        """End the server: it leaves at the end of its requests. Waiting for it
        also collects its children's CPU time, as waiting for fresh children does."""
        with self.changed:
            self.alive = False
        try:
            os.close(self._requests)
        except OSError:
            pass
        proc = getattr(self, "_proc", None)
        if proc is not None:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)


_servers: Dict[Any, Optional[ForkServer]] = {}
_servers_lock = threading.Lock()


def get(key: Any, harness: str, torch: bool, sys_path: List[str], env_for: Any) -> Optional[ForkServer]:
    """The server for ``key`` (whatever the server's children depend on), started
    on first use; None once one has failed for that key, so that a broken
    server costs one failed start, not one per run."""
    with _servers_lock:
        if key in _servers:
            server = _servers[key]
            return server if server is not None and server.alive else None
        home = tempfile.mkdtemp(prefix="gradlint-forkserver-")
        try:
            server = ForkServer(harness, torch, sys_path, env_for(home), home)
        except ServerLost:
            shutil.rmtree(home, ignore_errors=True)
            server = None
        _servers[key] = server
        return server


def drop(server: ForkServer) -> None:
    """Stop using ``server`` (it died): its key gets fresh processes from now on."""
    with _servers_lock:
        for key, value in list(_servers.items()):
            if value is server:
                _servers[key] = None
    server.close()


def _forget_in_child() -> None:
    # A process forked from this one (a worker pool) must not share the servers:
    # their replies go to this process's reader thread, which the fork did not copy.
    global _servers, _servers_lock
    _servers = {}
    _servers_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


@atexit.register
def close_all() -> None:
    with _servers_lock:
        servers = [s for s in _servers.values() if s is not None]
        _servers.clear()
    for server in servers:
        server.close()
