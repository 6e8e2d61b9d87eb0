"""Runs inside the sandboxed ``python -I`` subprocess of ``gradlint verify``.

Usage: ``python -I _harness.py CONFIG.json``. The parent writes the config
(what to run, what to watch, limits) and reads back the JSON result this
script writes to ``config["result"]``. The script's stdout and stderr belong
to the code under test; this file never prints.

Only the standard library and torch are used here: ``-I`` keeps the script's
directory off ``sys.path``, so nothing of gradlint can be imported.

For the same reason the harness imports its two siblings, ``_harness_values``
(the run's state, result file and summaries) and ``_harness_trace`` (what is
watched while the file runs), by their own top-level names, from this file's
directory, which is on ``sys.path`` only while they are imported: the other
modules of ``gradlint.verify`` beside them must not become importable to the
file under test, and importing gradlint's own modules would load them into the
process whose run is being measured. ``sandbox.harness_path_file`` gives the
child the three files together (extracted when gradlint runs from a zip).

Two modes:

- ``probe``: exec a catalog probe with ``observe(label, value)`` and
  ``confirm(condition, claim)`` and report what it observed and confirmed.
- ``script``: run a file as ``__main__`` and measure, without changing what it
  computes, what the parent asked to watch: statements (did they run, grad
  mode when they started, the tensors they assigned, warnings and exceptions
  raised there, a receiver's version counter and values before/after),
  regions (bytes saved for backward by graphs built there, each storage once,
  parameters apart; bytes still alive when the region is left) and functions
  (grad mode when called and when returning).

Saved tensors are seen through ``torch.autograd.graph.saved_tensors_hooks``.
The pack hook returns a small holder of ``t.detach()``: returning ``t`` (or
holding it) makes an uncollectable cycle when an op saves its own output.
A holder's ``__del__`` tells when autograd released the saved tensor, which
is what "still alive" means. Nothing here keeps a reference to an object of
the snippet: summaries are plain numbers and strings, so the instrumentation
cannot extend any tensor's lifetime.
"""

from __future__ import annotations

import builtins
import gc
import json
import os
import re
import signal
import sys
import time
import traceback
import types
import warnings

# The siblings, under their own names (see the docstring); the directory is not
# left on sys.path, where the file under test would find gradlint.verify's modules.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    from _harness_trace import _State, _global_tracer, _learn_inplace_message
    from _harness_values import MAX_EVENTS, G, _exc_text, _exc_types, _render, _write_result, summarize
finally:
    del sys.path[0]


def _on_term(signum, frame):
    if os.getpid() != G.main_pid:
        # A process the file forked: SIGTERM means what it always means.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    # The parent's timeout: report what was measured so far, then leave at once.
    G.result["status"] = "terminated"
    try:
        if G.state is not None:
            G.state.finish()
    except Exception:
        pass
    _write_result()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


def _set_limits(cfg):
    try:
        import resource
    except ImportError:  # not a POSIX system: run without limits
        G.result["limits"] = None
        return
    applied = {}
    output = cfg.get("output_limit")
    if output:
        try:
            resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
            applied["output"] = output
        except (ValueError, OSError):
            pass
    memory = cfg.get("memory_limit")
    if memory:
        # On Linux (>= 4.7) RLIMIT_DATA counts the memory a process can write:
        # heap, anonymous mappings, thread stacks. RLIMIT_AS also counts mere
        # reservations: glibc reserves 64 MiB of address space per thread
        # arena and CUDA tens of GiB, so an address-space limit fails honest
        # code on a many-core machine or with a GPU. Elsewhere RLIMIT_AS is
        # what the OS enforces. Either way the limit counts on top of what
        # Python and torch occupy after import: "memory the file may take".
        if _linux_at_least(4, 7):
            which, field = "RLIMIT_DATA", "VmData"
        else:
            which, field = "RLIMIT_AS", "VmSize"
        try:
            with open("/proc/self/status") as fh:
                m = re.search(field + r":\s+(\d+) kB", fh.read())
        except OSError:
            m = None
        if m is None:  # what is already in use is unknown: a limit could stop Python itself
            G.result["limits"] = applied
            return
        base = int(m.group(1)) * 1024
        try:
            limit = base + memory
            resource.setrlimit(getattr(resource, which), (limit, limit))
            applied["memory"] = memory
            applied["memory_kind"] = which
        except (ValueError, OSError, AttributeError):
            pass
    G.result["limits"] = applied


def _linux_at_least(major, minor):
    if not sys.platform.startswith("linux"):
        return False
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (major, minor)


def _import_torch():
    with warnings.catch_warnings():
        # torch warns at import when numpy is missing; that is no part of the snippet.
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch
    G.torch = torch
    G.result["torch"] = torch.__version__


def _seed(seed):
    import random

    random.seed(seed)
    if G.torch is not None:
        G.torch.manual_seed(seed)
    try:
        import importlib.util

        if importlib.util.find_spec("numpy") is not None:
            import numpy

            numpy.random.seed(seed % 2**32)
    except Exception:
        pass


# -- probes -------------------------------------------------------------------


def _mark_started(cfg):
    """Tell the parent that setup (importing torch) is over: its timeout starts now."""
    path = cfg.get("started")
    if path:
        try:
            with open(path, "w"):
                pass
        except OSError:
            pass


def run_probe(cfg):
    observed = []
    confirms = []
    G.result.update(observed=observed, confirms=confirms, error=None)

    def observe(label, value):
        observed.append([str(label), _render(value)])

    def confirm(condition, claim):
        confirms.append([bool(condition), str(claim)])

    code = compile(cfg["code"], cfg.get("name", "<probe>"), "exec")
    _mark_started(cfg)
    start = time.perf_counter()
    try:
        exec(code, {"__name__": "__probe__", "observe": observe, "confirm": confirm})
    except BaseException as exc:  # noqa: B036 - a probe's SystemExit is an error too
        tb = traceback.extract_tb(exc.__traceback__)
        line = next((fr.lineno for fr in reversed(tb) if fr.filename == cfg.get("name")), None)
        G.result["error"] = {"types": _exc_types(exc), "message": _exc_text(exc), "line": line}
    G.result["seconds"] = time.perf_counter() - start
    G.result["status"] = "finished"


# -- scripts ------------------------------------------------------------------


def _is_memory_error(exc):
    if isinstance(exc, MemoryError):
        return True
    text = _exc_text(exc)
    return isinstance(exc, RuntimeError) and ("can't allocate memory" in text or "out of memory" in text.lower())


class _ScriptFinder:
    """Imports the file under test by its module names (``pkg.model``, ``model``)
    from the copy that is being run, as written or as fixed, not from the
    user's directory: a driver, an entry module or a sibling that imports it
    gets the version under test, traced."""

    def __init__(self, names, path, code):
        self.names = set(names)
        self.path = path
        self.code = code

    def find_spec(self, fullname, target_path=None, target=None):
        if fullname not in self.names:
            return None
        import importlib.util

        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


class EntryError(Exception):
    """``--entry`` names something that cannot be called."""


def _call_entry(entry, names):
    """Import the entry's module (the file under test, or a module that uses it),
    and call the entry function with no arguments."""
    import importlib
    import importlib.util

    spec = entry["module"] or names[0]
    try:
        if entry.get("path"):
            mspec = importlib.util.spec_from_file_location(entry["module"], entry["path"])
            target = importlib.util.module_from_spec(mspec)
            sys.modules[entry["module"]] = target
            mspec.loader.exec_module(target)
        else:
            target = importlib.import_module(spec)
    except ImportError as exc:
        raise EntryError(f"--entry: cannot import `{spec}`: {_exc_text(exc)}") from None
    func = target
    for part in entry["function"].split("."):
        try:
            func = getattr(func, part)
        except AttributeError:
            raise EntryError(f"--entry: `{spec}` has no `{entry['function']}`") from None
    if not callable(func):
        raise EntryError(f"--entry: `{spec}.{entry['function']}` is not callable")
    func()


def run_script(cfg):
    path = cfg["script"]
    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins
    # The snippet's module stays __main__ to the end: atexit handlers and
    # pickling by reference (multiprocessing) find their objects there.
    sys.modules["__main__"] = module
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(path))
    # Where the file lives (its own directory, its project's root): sibling
    # modules import as they would from the project, after the copy's own directory.
    for i, entry in enumerate(cfg.get("paths") or (), 1):
        if entry not in sys.path:
            sys.path.insert(i, entry)
    names = cfg.get("module_names") or []
    if names:
        sys.meta_path.insert(0, _ScriptFinder(names, path, code))
    entry = cfg.get("entry")
    driver = cfg.get("driver")
    if driver:
        sys.argv = [driver]

    if cfg.get("seed") is not None:
        _seed(cfg["seed"])
    torch = G.torch
    G.state = _State(cfg)
    original_showwarning = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        try:
            G.state.warning(message, category, filename, lineno)
        except Exception:
            pass
        return original_showwarning(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    hooks = None
    if torch is not None and cfg.get("saved_hooks", True):
        _learn_inplace_message()
        hooks = torch.autograd.graph.saved_tensors_hooks(G.state.pack, G.state.unpack)
    G.result["saved_measured"] = hooks is not None
    G.result["status"] = "running"
    _mark_started(cfg)
    start = time.perf_counter()
    outcome = {"kind": "completed"}
    try:
        if hooks is not None:
            hooks.__enter__()
        sys.settrace(_global_tracer)
        try:
            if driver:
                # The driver imports the file (as its module, through _ScriptFinder) and calls it.
                import runpy

                module.__dict__.update(runpy.run_path(driver, run_name="__main__"))
            elif entry:
                _call_entry(entry, names)
            else:
                exec(code, module.__dict__)
        finally:
            sys.settrace(None)
            if (driver or entry) and sys.modules.get(names[0]) is not None:
                # The values compared at the end are those of the file's own module.
                found = sys.modules[names[0]].__dict__
                module.__dict__.update({k: v for k, v in found.items() if not k.startswith("__")})
            if hooks is not None:
                hooks.__exit__(None, None, None)
    except SystemExit as exc:
        code_ = exc.code
        if code_ is None or code_ == 0:
            outcome = {"kind": "completed"}
        else:
            outcome = {"kind": "exit", "code": code_ if isinstance(code_, int) else 1, "message": None if isinstance(code_, int) else str(code_)[:500]}
    except BaseException as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        line = next((fr.lineno for fr in reversed(tb) if fr.filename == path), None)
        oom = _is_memory_error(exc)
        outcome = {
            "kind": "out-of-memory" if oom else "exception",
            "types": _exc_types(exc),
            "message": _exc_text(exc),
            "line": line,
        }
        if oom:
            exc = tb = None
            G.reserve = None
            module.__dict__.clear()
            gc.collect()
        else:
            G.state.exception(exc, line)
    G.result["seconds"] = time.perf_counter() - start
    warnings.showwarning = original_showwarning
    G.result["outcome"] = outcome
    if outcome["kind"] != "out-of-memory":
        g = {}
        for name, value in list(module.__dict__.items()):
            if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
                continue
            s = summarize(value)
            if s["type"] != "other":
                g[name] = s
            if len(g) >= MAX_EVENTS:
                break
        G.result["globals"] = g
    G.state.finish()
    G.result["status"] = "finished"


def main(argv):
    with open(argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    G.result_path = cfg["result"]
    # Some memory to give back when the snippet ran out, so the result can be written.
    G.reserve = bytearray(4 << 20)
    signal.signal(signal.SIGTERM, _on_term)
    for entry in cfg.get("sys_path", []):
        if entry not in sys.path:
            sys.path.append(entry)
    try:
        if cfg.get("torch", True):
            _import_torch()
    except BaseException as exc:
        G.result.update(status="setup-error", error=f"cannot import torch: {type(exc).__name__}: {_exc_text(exc)}")
        _write_result()
        return 0
    _set_limits(cfg)
    if cfg["mode"] == "probe":
        run_probe(cfg)
    else:
        run_script(cfg)
    _write_result()
    return 0


def _serve(argv):
    """Serve runs as a fork server (``_harness_serve``); return, in each forked
    child, the ``argv`` of its run."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from _harness_serve import serve
    finally:
        del sys.path[0]
    run_argv = serve(argv[2], _import_torch)
    # Only a fresh child's modules: the server's loop is no part of the run.
    del sys.modules["_harness_serve"]
    G.main_pid = os.getpid()
    return run_argv


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        status = main(_serve(sys.argv))
        # The run is over and its result written. Ending a forked child collects
        # every object it inherited, which copies their pages: 0.56 s of CPU
        # against 0.34 s for a fresh child, and 0.17 s frozen. The one difference
        # is that cyclic garbage alive now is not collected at exit (where Python
        # does not promise to collect it either).
        gc.freeze()
        sys.exit(status)
    sys.exit(main(sys.argv))
