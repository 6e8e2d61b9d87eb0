"""The harness as a fork server: ``python -I _harness.py --serve SETUP``.

Importing torch is most of what a sandboxed run costs (about 2 s of CPU). The
server imports it once, as a fresh harness child would (same interpreter,
flags, ``sys.path`` and environment), and then runs nothing of torch: no op
has run, so no OpenMP or intra-op thread pool exists to be lost in a fork
(numpy's OpenBLAS, which torch loads, stops its threads before a fork and
starts them again when next used). For each run it forks a child, which
returns from ``serve`` to run the harness's ``main`` as a fresh child does,
after it has made itself what a fresh child is: a session of its own, the
run's working directory, environment, stdin (/dev/null), stdout and stderr
files and process limit, the output that importing printed, random
generators seeded from the OS (``random``'s and torch's), the modules of a
fresh child and its own ``argv``. The parent (``gradlint.verify.forkserver``)
waits for, signals and kills the child by its pid as it would a process it
started; the server reports each child's exit status.

Protocol, one JSON object a line: the parent writes requests on the fd
``requests`` (``{"id", "argv", "cwd", "env", "stdout", "stderr", "nproc"}``);
the server answers on ``replies``: ``{"ready": true}`` once (or ``{"error"}``,
then exits), then ``{"id", "pid"}`` when a run's child exists (``{"id",
"error"}`` when it could not fork) and ``{"id", "exit"}`` when it ended
(``Popen.returncode``'s convention). End of file on ``requests`` ends the
server. Only the standard library is used, as in the rest of the harness.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys

# What a single write to a pipe keeps whole (POSIX guarantees at least 512).
_ATOMIC = 512


def serve(setup_json, import_torch):
    """Serve runs until the parent closes ``requests``; return, in each forked
    child only, the ``argv`` its harness ``main`` is to run with."""
    setup = json.loads(setup_json)
    requests, replies = setup["requests"], setup["replies"]
    for entry in setup.get("sys_path", []):
        if entry not in sys.path:
            sys.path.append(entry)
    if setup.get("torch", True):
        try:
            import_torch()
        except BaseException as exc:  # noqa: B036 - the parent runs fresh children, which report it
            _send(replies, {"error": f"cannot import torch: {type(exc).__name__}"})
            os._exit(0)
    # Imported after torch, which imports it too; otherwise it is the server's
    # alone, and leaves the children's sys.modules (``_become_run``).
    own_modules = [] if "select" in sys.modules else ["select"]
    import select

    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    # What importing printed (torch's own warnings): a fresh child's files begin with it.
    printed = [_read(setup["stdout"]), _read(setup["stderr"])]
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_w)
    own_fds = (requests, replies, wake_r, wake_w)
    # What importing made stays out of the collector's sight in the children
    # until they ask for it (``_become_run``): collecting touches every object,
    # which copies the page it lies on, and ending a child collects.
    gc.freeze()
    _send(replies, {"ready": True})
    runs = {}
    pending = b""
    while True:
        ready, _, _ = select.select([requests, wake_r], [], [])
        if wake_r in ready:
            try:
                while os.read(wake_r, 4096):
                    pass
            except BlockingIOError:
                pass
        _reap(runs, replies)
        if requests not in ready:
            continue
        data = os.read(requests, 1 << 16)
        if not data:
            os._exit(0)
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            try:
                pid = os.fork()
            except OSError as exc:
                _send(replies, {"id": request["id"], "error": str(exc)[:200]})
                continue
            if pid == 0:
                try:
                    _become_run(request, printed, own_fds, own_modules)
                except BaseException:  # noqa: B036 - nothing of the run has started: say why, and end
                    import traceback

                    traceback.print_exc()
                    sys.stderr.flush()
                    os._exit(70)
                return request["argv"]
            runs[pid] = request["id"]
            _send(replies, {"id": request["id"], "pid": pid})


def _reap(runs, replies):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        run_id = runs.pop(pid, None)
        if run_id is not None:
            _send(replies, {"id": run_id, "exit": os.waitstatus_to_exitcode(status)})


def _become_run(request, printed, own_fds, own_modules):
    """Make this forked child what a fresh ``python -I`` harness child of the run is."""
    gc.unfreeze()  # a fresh child's collector, and gc.get_objects(), see everything
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in own_fds:
        os.close(fd)
    os.setsid()
    limit = request.get("nproc")
    if limit:
        import resource

        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        except (ValueError, OSError):
            pass  # as when the parent cannot lower a fresh child's limit
    os.chdir(request["cwd"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        os.dup2(opened, fd)
        os.close(opened)
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, data in zip((1, 2), printed):
        while data:
            data = data[os.write(fd, data) :]
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None  # found again from TMPDIR, which is the run's
    # A fresh process seeds these from the OS; without this every run would draw
    # the server's numbers, and two unseeded runs would agree where fresh ones do not.
    if "random" in sys.modules:
        sys.modules["random"].seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    if "torch" in sys.modules:
        # torch seeds its CPU generator from the OS at start-up too (the other
        # devices' generators start in the child, when first used).
        sys.modules["torch"].default_generator.seed()
    for name in own_modules:
        del sys.modules[name]
    sys.argv = list(request["argv"])
    sys.orig_argv = list(sys.orig_argv[:2]) + sys.argv


def _send(fd, message):
    data = (json.dumps(message) + "\n").encode()
    assert len(data) <= _ATOMIC, "a reply must reach the parent whole"
    try:
        os.write(fd, data)
    except BrokenPipeError:  # the parent is gone: so is every reason to serve
        os._exit(0)


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 20)
    except OSError:
        return b""
