"""What the harness (``_harness.py``) watches while a file runs: statements,
regions, saved-tensor bytes, warnings and exceptions, through a trace function
and ``saved_tensors_hooks``.

Standard library and torch only, never gradlint (see ``_harness_values``).
"""

from __future__ import annotations

import re
import sys
import threading

from _harness_values import HEAD, MAX_EVENTS, _MISSING, G, _exc_text, _exc_types, _resolve, _tensor_summary, summarize


class _Holder:
    """What the pack hook stores in the graph; its death means autograd let go."""

    __slots__ = ("t", "version", "grad_fn", "output_nr", "key", "nbytes", "param", "buckets", "__weakref__")

    def __del__(self):
        state = G.state
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
    torch = G.torch
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
    return text + (_ANOMALY_HINT if G.torch.is_anomaly_enabled() else _INPLACE["hint"])


# Graph nodes counted from one accumulator at most (a walk per iteration must stay cheap).
MAX_NODES = 100000


def _graph_nodes(obj):
    """How many autograd nodes are reachable from the tensors in ``obj`` (a tensor, or a
    list, tuple or dict of them, one level deep): what an accumulator keeps referenced
    even after ``backward()`` has freed the saved activations."""
    torch = G.torch
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
        torch = G.torch
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
        enabled = bool(G.torch.is_grad_enabled()) if G.torch is not None else None
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
        torch = G.torch
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
        torch = G.torch
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
        torch = G.torch
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
        G.result["statements"] = {str(k): st.to_json() for k, st in self.statements.items()}
        G.result["regions"] = {rid: dict(self.buckets[rid].to_json(), iterations=self.iterations[rid]) for rid, _, _, _ in self.regions}
        G.result["saved"] = self.total.to_json()
        G.result["functions"] = {f["id"]: {k: f[k] for k in ("calls", "leaks", "example")} for fs in self.functions.values() for f in fs}
        G.result["warnings"] = self.warnings
        G.result["exceptions"] = self.exceptions
        torch = G.torch
        if torch is not None:
            try:
                if torch.cuda.is_available() and torch.cuda.is_initialized():
                    G.result["cuda_peak"] = int(torch.cuda.max_memory_allocated())
            except Exception:
                pass


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
                after = bool(G.torch.is_grad_enabled())
                if enabled and not after:
                    spec["leaks"] += 1
                    if spec["example"] is None:
                        spec["example"] = {"called": enabled, "returned": after}
        elif event == "exception":
            state.exception(arg[1], frame.f_lineno)
        return self


def _global_tracer(frame, event, arg):
    state = G.state
    if state is None or frame.f_code.co_filename != state.script:
        return None
    func = None
    specs = state.functions.get(frame.f_code.co_name)
    if specs and G.torch is not None:
        first = frame.f_code.co_firstlineno
        for spec in specs:
            if spec["first"] <= first <= spec["def"]:
                spec["calls"] += 1
                func = (spec, bool(G.torch.is_grad_enabled()))
                break
    return _FrameTracer(state, func)
