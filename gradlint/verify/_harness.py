"""Runs inside the sandboxed ``python -I`` subprocess of ``gradlint verify``.

Usage: ``python -I _harness.py CONFIG.json``. The parent writes the config
(what to run, what to watch, limits) and reads back the JSON result this
script writes to ``config["result"]``. The script's stdout and stderr belong
to the code under test; this file never prints.

Only the standard library and torch are used here: ``-I`` keeps the script's
directory off ``sys.path``, so nothing of gradlint can be imported.

For the same reason this file stays one module, longer than the package's
bound of 800 lines (``tests/test_module_size.py`` names it as the exception):
a sibling module could not be imported from here, and the parent hands the
child this file alone (``sandbox.harness_path_file``, which extracts just it
when gradlint runs from a zip). Importing gradlint's own modules instead would
load them into the process whose run is being measured.

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
import threading
import time
import traceback
import types
import warnings

MAX_EVENTS = 200
HEAD = 16
_MISSING = object()

_torch = None
_result = {"status": "starting"}
_result_path = None
_written = False
_reserve = None
# Processes the file forks (DataLoader workers, os.fork) inherit this module:
# only the harness's own process may write the result.
_main_pid = os.getpid()


def _write_result():
    """Write the result once, atomically (a crash mid-write leaves no half file)."""
    global _written, _reserve
    if _written or _result_path is None or os.getpid() != _main_pid:
        return
    _written = True
    _reserve = None  # the emergency memory, for a run that ended out of memory
    tmp = _result_path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(_result, fh, default=str)
        os.replace(tmp, _result_path)
    except Exception:
        pass


def _on_term(signum, frame):
    if os.getpid() != _main_pid:
        # A process the file forked: SIGTERM means what it always means.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    # The parent's timeout: report what was measured so far, then leave at once.
    _result["status"] = "terminated"
    try:
        if _state is not None:
            _state.finish()
    except Exception:
        pass
    _write_result()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


def _exc_types(exc):
    return [c.__name__ for c in type(exc).__mro__ if c not in (object, BaseException)]


def _exc_text(exc):
    try:
        text = str(exc)
    except Exception:
        text = "<unprintable>"
    return text[:2000]


def _set_limits(cfg):
    try:
        import resource
    except ImportError:  # not a POSIX system: run without limits
        _result["limits"] = None
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
            _result["limits"] = applied
            return
        base = int(m.group(1)) * 1024
        try:
            limit = base + memory
            resource.setrlimit(getattr(resource, which), (limit, limit))
            applied["memory"] = memory
            applied["memory_kind"] = which
        except (ValueError, OSError, AttributeError):
            pass
    _result["limits"] = applied


def _linux_at_least(major, minor):
    if not sys.platform.startswith("linux"):
        return False
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (major, minor)


def _import_torch():
    global _torch
    with warnings.catch_warnings():
        # torch warns at import when numpy is missing; that is no part of the snippet.
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch
    _torch = torch
    _result["torch"] = torch.__version__


def _seed(seed):
    import random

    random.seed(seed)
    if _torch is not None:
        _torch.manual_seed(seed)
    try:
        import importlib.util

        if importlib.util.find_spec("numpy") is not None:
            import numpy

            numpy.random.seed(seed % 2**32)
    except Exception:
        pass


# -- summaries: plain data describing a value, never a reference to it -------


def _tensor_summary(t, values=True):
    torch = _torch
    out = {
        "type": "tensor",
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
        "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
    }
    try:
        out["inference"] = bool(t.is_inference())
    except Exception:
        pass
    if not values:
        return out
    try:
        with torch.no_grad():
            d = t.detach()
            if d.is_complex():
                d = d.abs()
            if d.numel() and d.device.type != "meta" and not d.is_sparse:
                out["sum"] = float(d.sum(dtype=torch.float64))
                out["abs_sum"] = float(d.abs().sum(dtype=torch.float64)) if d.dtype != torch.bool else out["sum"]
                out["head"] = [float(x) for x in d.reshape(-1)[:HEAD].tolist()]
            elif not d.numel():
                out["head"] = []
    except Exception:
        pass
    return out


def _module_summary(m, values=True):
    params = []
    trainable = total = 0
    for i, (name, p) in enumerate(m.named_parameters()):
        total += 1
        trainable += bool(p.requires_grad)
        if values and i < 200:
            params.append([name, _tensor_summary(p)])
    return {"type": "module", "class": type(m).__name__, "trainable": trainable, "parameters": total, "params": params}


def summarize(value, values=True, depth=0):
    torch = _torch
    if torch is not None and isinstance(value, torch.Tensor):
        return _tensor_summary(value, values)
    if isinstance(value, bool):
        return {"type": "bool", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "str", "value": value[:500]}
    if value is None:
        return {"type": "none"}
    if isinstance(value, (list, tuple)) and depth < 2:
        items = [summarize(v, values, depth + 1) for v in value[:HEAD]]
        return {"type": "seq", "length": len(value), "items": items}
    if torch is not None and isinstance(value, torch.nn.Module) and depth == 0:
        return _module_summary(value, values)
    return {"type": "other", "class": type(value).__name__}


# -- probes -------------------------------------------------------------------


def _render(value):
    torch = _torch
    if torch is not None and isinstance(value, torch.Tensor):
        s = _tensor_summary(value, values=False)
        return f"tensor(shape={tuple(s['shape'])}, dtype={s['dtype']}, requires_grad={s['requires_grad']}, grad_fn={s['grad_fn']})"
    if isinstance(value, str):
        return value[:2000]
    text = repr(value)
    return text if len(text) <= 2000 else text[:2000] + "..."


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
    _result.update(observed=observed, confirms=confirms, error=None)

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
        _result["error"] = {"types": _exc_types(exc), "message": _exc_text(exc), "line": line}
    _result["seconds"] = time.perf_counter() - start
    _result["status"] = "finished"


# -- scripts ------------------------------------------------------------------


class _Holder:
    """What the pack hook stores in the graph; its death means autograd let go."""

    __slots__ = ("t", "version", "grad_fn", "output_nr", "key", "nbytes", "param", "buckets", "__weakref__")

    def __del__(self):
        state = _state
        if state is not None:
            try:
                state.release(self)
            except Exception:
                pass


class _Bucket:
    """Live saved-tensor bytes of one region (or of the whole run)."""

    __slots__ = ("counts", "live", "live_params", "peak", "peak_params", "packed", "exits", "kept_max", "kept_last")

    def __init__(self):
        # storage key -> [saved tensors holding it, iteration first saved, bytes, is a parameter]
        self.counts = {}
        self.live = self.live_params = self.peak = self.peak_params = 0
        self.packed = self.exits = 0
        self.kept_max = self.kept_last = 0

    def to_json(self):
        return {
            "peak": self.peak,
            "peak_params": self.peak_params,
            "live": self.live,
            "packed": self.packed,
            "exits": self.exits,
            "kept_max": self.kept_max,
            "kept_last": self.kept_last,
        }


# Torch's own wording, taken from one real failure at start-up (see _learn_inplace_message).
_INPLACE = {
    "prefix": "one of the variables needed for gradient computation has been modified by an inplace operation: ",
    "hint": " Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False).",
}
_ANOMALY_HINT = (
    " Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!"
)


def _learn_inplace_message():
    torch = _torch
    try:
        w = torch.ones(1, requires_grad=True)
        h = w * 2
        z = h * h
        h.detach().add_(1)
        z.backward()
    except RuntimeError as exc:
        text = str(exc)
        head, bracket, _ = text.partition("[")
        _, instead, hint = text.partition("instead.")
        if bracket and instead:
            _INPLACE["prefix"], _INPLACE["hint"] = head, hint


def _inplace_message(t, holder):
    shape = ", ".join(str(n) for n in t.shape)
    text = f"{_INPLACE['prefix']}[{t.type()} [{shape}]]"
    if holder.grad_fn is not None:
        name = re.sub(r"Backward\d*$", "", holder.grad_fn)
        text += f", which is output {holder.output_nr} of {name},"
    text += f" is at version {t._version}; expected version {holder.version} instead."
    return text + (_ANOMALY_HINT if _torch.is_anomaly_enabled() else _INPLACE["hint"])


# Graph nodes counted from one accumulator at most (a walk per iteration must stay cheap).
MAX_NODES = 100000


def _graph_nodes(obj):
    """How many autograd nodes are reachable from the tensors in ``obj`` (a tensor, or a
    list, tuple or dict of them, one level deep): what an accumulator keeps referenced
    even after ``backward()`` has freed the saved activations."""
    torch = _torch
    if isinstance(obj, dict):
        items = list(obj.values())[:MAX_EVENTS]
    elif isinstance(obj, (list, tuple)):
        items = list(obj[:MAX_EVENTS])
    else:
        items = [obj]
    stack = [t.grad_fn for t in items if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    seen = set()
    while stack and len(seen) < MAX_NODES:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        try:
            stack.extend(nxt for nxt, _ in fn.next_functions)
        except Exception:
            pass
    return len(seen)


class _Statement:
    def __init__(self, spec):
        self.start = spec["start"]
        self.end = spec["end"]
        self.names = spec.get("names", [])
        self.returns = spec.get("returns", False)
        self.receiver = spec.get("receiver")
        self.reads = spec.get("reads", [])
        self.full = spec.get("full", False)
        self.exit_from = spec.get("exit_from")
        self.entered = 0
        self.first_seq = None
        self.grad_at_entry = None
        self.grad_disabled_entries = 0
        self.first = None
        self.last = None
        self.graph = None
        self.graph_count = 0
        self.receiver_first = None
        self.receiver_last = None
        self.bypass = None
        self.aliases = {}

    def to_json(self):
        return {
            "entered": self.entered,
            "first_seq": self.first_seq,
            "grad_at_entry": self.grad_at_entry,
            "grad_disabled_entries": self.grad_disabled_entries,
            "first": self.first,
            "last": self.last,
            "graph": self.graph,
            "graph_count": self.graph_count,
            "receiver": self.receiver_first,
            "receiver_last": self.receiver_last,
            "bypass": self.bypass,
            "aliases": self.aliases,
        }


def _resolve(frame, dotted):
    parts = dotted.split(".")
    head = parts[0]
    f_locals = frame.f_locals
    if head in f_locals:
        obj = f_locals[head]
    elif head in frame.f_globals:
        obj = frame.f_globals[head]
    elif hasattr(builtins, head):
        obj = getattr(builtins, head)
    else:
        return _MISSING
    for part in parts[1:]:
        obj = _peek_attribute(obj, part)
        if obj is _MISSING:
            return _MISSING
    return obj


def _peek_attribute(obj, name):
    """``getattr`` without running code of the snippet or of torch: only values
    stored in dictionaries are read (reading ``t.volatile`` would warn, a
    property could do anything); ``.grad`` of a leaf tensor is the exception."""
    torch = _torch
    try:
        if torch is not None and isinstance(obj, torch.Tensor):
            if name == "grad" and obj.is_leaf:
                return obj.grad
        if torch is not None and isinstance(obj, torch.nn.Module):
            for table in ("_parameters", "_buffers", "_modules"):
                found = obj.__dict__.get(table, {}).get(name, _MISSING)
                if found is not _MISSING:
                    return found
        return object.__getattribute__(obj, "__dict__").get(name, _MISSING)
    except Exception:
        return _MISSING


class _State:
    """All measurements of one script run."""

    def __init__(self, cfg):
        self.script = cfg["script"]
        self.lock = threading.RLock()
        self.seq = 0
        self.statements = {}
        self.by_line = {}
        for spec in cfg.get("statements", []):
            st = _Statement(spec)
            self.statements[st.start] = st
            for line in range(st.start, st.end + 1):
                self.by_line.setdefault(line, st)
        self.regions = [(r["id"], r["start"], r["end"], r.get("count_line")) for r in cfg.get("regions", [])]
        self.region_lines = {}
        for rid, start, end, _ in self.regions:
            for line in range(start, end + 1):
                self.region_lines.setdefault(line, []).append(rid)
        self.buckets = {rid: _Bucket() for rid, _, _, _ in self.regions}
        self.total = _Bucket()
        self.iterations = {rid: 0 for rid, _, _, _ in self.regions}
        self.count_lines = {r[3]: r[0] for r in self.regions if r[3]}
        self.functions = {}
        for f in cfg.get("functions", []):
            self.functions.setdefault(f["name"], []).append(dict(f, calls=0, leaks=0, example=None))
        self.warnings = []
        self.exceptions = []
        self._last_exc = None
        self._last_key = None

    # -- saved tensors ---------------------------------------------------

    def snippet_lines(self, frame):
        lines = []
        script = self.script
        while frame is not None:
            if frame.f_code.co_filename == script:
                lines.append(frame.f_lineno)
            frame = frame.f_back
        return lines

    def pack(self, t):
        holder = _Holder()
        holder.t = t.detach()  # shares storage and version counter with t
        holder.version = t._version
        fn = t.grad_fn
        holder.grad_fn = type(fn).__name__ if fn is not None else None
        holder.output_nr = t.output_nr
        holder.buckets = ()
        try:
            storage = t.untyped_storage()
            ptr = storage.data_ptr()
            nbytes = storage.nbytes()
        except Exception:
            return holder
        if not ptr or not nbytes:
            return holder
        torch = _torch
        base = t._base if t._base is not None else t
        param = isinstance(base, torch.nn.Parameter) or (base.is_leaf and base.requires_grad)
        holder.key = (ptr, str(t.device))
        holder.nbytes = nbytes
        holder.param = param
        regions = set()
        for line in self.snippet_lines(sys._getframe(1)):
            regions.update(self.region_lines.get(line, ()))
        buckets = [(self.total, 0)] + [(self.buckets[r], self.iterations[r]) for r in sorted(regions)]
        holder.buckets = tuple(b for b, _ in buckets)
        with self.lock:
            for b, iteration in buckets:
                b.packed += 1
                entry = b.counts.get(holder.key)
                if entry is not None:
                    entry[0] += 1
                    continue
                b.counts[holder.key] = [1, iteration, nbytes, param]
                if param:
                    b.live_params += nbytes
                    b.peak_params = max(b.peak_params, b.live_params)
                else:
                    b.live += nbytes
                    b.peak = max(b.peak, b.live)
        return holder

    def unpack(self, holder):
        # With saved-tensor hooks torch skips its own check that a saved
        # tensor was not modified in place; without this, instrumented code
        # would silently compute wrong gradients where it should raise.
        t = holder.t
        if t._version != holder.version:
            raise RuntimeError(_inplace_message(t, holder))
        return t

    def release(self, holder):
        if not holder.buckets:
            return
        with self.lock:
            for b in holder.buckets:
                entry = b.counts.get(holder.key)
                if entry is None:
                    continue
                entry[0] -= 1
                if entry[0] > 0:
                    continue
                del b.counts[holder.key]
                if entry[3]:
                    b.live_params -= entry[2]
                else:
                    b.live -= entry[2]

    # -- statements --------------------------------------------------------

    def enter(self, st, frame, fstate):
        self.seq += 1
        st.entered += 1
        if st.first_seq is None:
            st.first_seq = self.seq
        enabled = bool(_torch.is_grad_enabled()) if _torch is not None else None
        if st.grad_at_entry is None:
            st.grad_at_entry = enabled
        if enabled is False:
            st.grad_disabled_entries += 1
        if st.full and st.receiver and st.bypass is None:
            fstate.before = self._receiver_state(_resolve(frame, st.receiver))

    def leave(self, st, frame, fstate, retval=_MISSING):
        values = {}
        for name in st.names:
            v = _resolve(frame, name)
            if v is not _MISSING:
                values[name] = v
        if st.returns and retval is not _MISSING:
            values["return"] = retval
        if st.full:
            summary = {k: summarize(v) for k, v in values.items()}
            if st.first is None:
                st.first = summary
                self._aliases(st, frame, values)
            st.last = summary
            if st.receiver and st.bypass is None:
                after = self._receiver_state(_resolve(frame, st.receiver), nodes=True)
                before, fstate.before = fstate.before, None
                if st.receiver_first is None:
                    st.receiver_first = {"before": before, "after": after}
                st.receiver_last = {"after": after, "entered": st.entered}
                if before and after and before.get("kind") == "tensor" and after.get("kind") == "tensor":
                    changed = before.get("sum") != after.get("sum") or before.get("abs_sum") != after.get("abs_sum")
                    if changed and before["version"] == after["version"]:
                        st.bypass = {"before": before, "after": after}
        torch = _torch
        if torch is None:
            return
        for name, v in values.items():
            items = v if isinstance(v, (tuple, list)) else (v,)
            for item in items[:HEAD]:
                if isinstance(item, torch.Tensor) and item.grad_fn is not None:
                    st.graph_count += 1
                    if st.graph is None:
                        st.graph = {"name": name, "grad_fn": type(item.grad_fn).__name__, "line": st.start}
                    return

    def _aliases(self, st, frame, values):
        """Which watched values share storage with a tensor of the statement that requires grad."""
        torch = _torch
        if torch is None or not st.reads:
            return
        produced = {}
        for name, v in values.items():
            if isinstance(v, torch.Tensor) and not v.requires_grad:
                try:
                    produced[name] = v.untyped_storage().data_ptr()
                except Exception:
                    pass
        if not produced:
            return
        candidates = []
        for dotted in st.reads:
            obj = _resolve(frame, dotted)
            if isinstance(obj, torch.Tensor):
                candidates.append((dotted, obj))
            elif isinstance(obj, torch.nn.Module):
                for i, (pname, p) in enumerate(obj.named_parameters()):
                    if i >= 2000:
                        break
                    candidates.append((f"{dotted}.{pname}", p))
        for name, ptr in produced.items():
            for dotted, t in candidates:
                try:
                    if t.requires_grad and ptr and t.untyped_storage().data_ptr() == ptr:
                        st.aliases[name] = dotted
                        break
                except Exception:
                    continue

    def _receiver_state(self, obj, nodes=False):
        torch = _torch
        if torch is None or obj is _MISSING:
            return None
        if isinstance(obj, torch.Tensor):
            s = _tensor_summary(obj)
            out = {
                "kind": "tensor",
                "version": int(obj._version),
                "requires_grad": bool(obj.requires_grad),
                "sum": s.get("sum"),
                "abs_sum": s.get("abs_sum"),
            }
        elif isinstance(obj, torch.nn.Module):
            flags = [bool(p.requires_grad) for p in obj.parameters()]
            return {"kind": "module", "class": type(obj).__name__, "trainable": sum(flags), "parameters": len(flags)}
        else:
            out = {"kind": "other", "class": type(obj).__name__}
        if nodes:
            out["graph_nodes"] = _graph_nodes(obj)
        return out

    # -- regions and functions ---------------------------------------------

    def exit_region(self, rid):
        # What graphs of earlier iterations still hold when the loop is left;
        # the last iteration's graph is normally alive through its variables.
        b = self.buckets[rid]
        current = self.iterations[rid]
        with self.lock:
            kept = sum(e[2] for e in b.counts.values() if not e[3] and e[1] < current)
        b.exits += 1
        b.kept_last = kept
        b.kept_max = max(b.kept_max, kept)

    # -- warnings and exceptions -------------------------------------------

    def warning(self, message, category, filename, lineno):
        if len(self.warnings) >= MAX_EVENTS:
            return
        lines = self.snippet_lines(sys._getframe(1))
        self.seq += 1
        self.warnings.append(
            {
                "category": category.__name__,
                "types": [c.__name__ for c in category.__mro__ if c not in (object, BaseException)],
                "message": str(message)[:2000],
                "line": lines[0] if lines else None,
                "lines": lines[:8],
                "seq": self.seq,
            }
        )

    def exception(self, exc, line):
        key = (id(exc), type(exc))
        if key == self._last_exc:
            # The same exception, unwinding through the frames that called the line.
            if self.exceptions and self.exceptions[-1]["key"] == self._last_key:
                lines = self.exceptions[-1]["lines"]
                if line not in lines and len(lines) < 8:
                    lines.append(line)
            return
        self._last_exc = key
        if len(self.exceptions) >= MAX_EVENTS:
            return
        self.seq += 1
        self._last_key = self.seq
        self.exceptions.append(
            {"types": _exc_types(exc), "message": _exc_text(exc), "line": line, "lines": [line], "seq": self.seq, "key": self.seq}
        )

    def finish(self):
        _result["statements"] = {str(k): st.to_json() for k, st in self.statements.items()}
        _result["regions"] = {rid: dict(self.buckets[rid].to_json(), iterations=self.iterations[rid]) for rid, _, _, _ in self.regions}
        _result["saved"] = self.total.to_json()
        _result["functions"] = {f["id"]: {k: f[k] for k in ("calls", "leaks", "example")} for fs in self.functions.values() for f in fs}
        _result["warnings"] = self.warnings
        _result["exceptions"] = self.exceptions
        torch = _torch
        if torch is not None:
            try:
                if torch.cuda.is_available() and torch.cuda.is_initialized():
                    _result["cuda_peak"] = int(torch.cuda.max_memory_allocated())
            except Exception:
                pass


_state = None


class _FrameTracer:
    """The local trace function of one frame of the script."""

    __slots__ = ("state", "current", "inside", "before", "func", "last_line")

    def __init__(self, state, func):
        self.state = state
        self.last_line = None
        self.current = None
        self.inside = ()
        self.before = None
        self.func = func

    def __call__(self, frame, event, arg):
        state = self.state
        if event == "line":
            line = frame.f_lineno
            st = state.by_line.get(line)
            if self.current is not None and st is not self.current:
                state.leave(self.current, frame, self)
                self.current = None
            if st is not None and st is not self.current:
                back = st.exit_from
                if back is None or self.last_line is None or not back[0] <= self.last_line <= back[1]:
                    state.enter(st, frame, self)
                    self.current = st
            self.last_line = line
            regions = state.region_lines.get(line, ())
            if self.inside != regions:
                for rid in self.inside:
                    if rid not in regions:
                        state.exit_region(rid)
                self.inside = regions
            rid = state.count_lines.get(line)
            if rid is not None:
                state.iterations[rid] += 1
        elif event == "return":
            if self.current is not None:
                state.leave(self.current, frame, self, arg)
                self.current = None
            for rid in self.inside:
                state.exit_region(rid)
            self.inside = ()
            if self.func is not None:
                spec, enabled = self.func
                after = bool(_torch.is_grad_enabled())
                if enabled and not after:
                    spec["leaks"] += 1
                    if spec["example"] is None:
                        spec["example"] = {"called": enabled, "returned": after}
        elif event == "exception":
            state.exception(arg[1], frame.f_lineno)
        return self


def _global_tracer(frame, event, arg):
    state = _state
    if state is None or frame.f_code.co_filename != state.script:
        return None
    func = None
    specs = state.functions.get(frame.f_code.co_name)
    if specs and _torch is not None:
        first = frame.f_code.co_firstlineno
        for spec in specs:
            if spec["first"] <= first <= spec["def"]:
                spec["calls"] += 1
                func = (spec, bool(_torch.is_grad_enabled()))
                break
    return _FrameTracer(state, func)


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
    global _state, _reserve
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
    torch = _torch
    _state = _State(cfg)
    original_showwarning = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        try:
            _state.warning(message, category, filename, lineno)
        except Exception:
            pass
        return original_showwarning(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    hooks = None
    if torch is not None and cfg.get("saved_hooks", True):
        _learn_inplace_message()
        hooks = torch.autograd.graph.saved_tensors_hooks(_state.pack, _state.unpack)
    _result["saved_measured"] = hooks is not None
    _result["status"] = "running"
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
            _reserve = None
            module.__dict__.clear()
            gc.collect()
        else:
            _state.exception(exc, line)
    _result["seconds"] = time.perf_counter() - start
    warnings.showwarning = original_showwarning
    _result["outcome"] = outcome
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
        _result["globals"] = g
    _state.finish()
    _result["status"] = "finished"


def main(argv):
    global _result_path, _reserve
    with open(argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    _result_path = cfg["result"]
    # Some memory to give back when the snippet ran out, so the result can be written.
    _reserve = bytearray(4 << 20)
    signal.signal(signal.SIGTERM, _on_term)
    for entry in cfg.get("sys_path", []):
        if entry not in sys.path:
            sys.path.append(entry)
    try:
        if cfg.get("torch", True):
            _import_torch()
    except BaseException as exc:
        _result.update(status="setup-error", error=f"cannot import torch: {type(exc).__name__}: {_exc_text(exc)}")
        _write_result()
        return 0
    _set_limits(cfg)
    if cfg["mode"] == "probe":
        run_probe(cfg)
    else:
        run_script(cfg)
    _write_result()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
