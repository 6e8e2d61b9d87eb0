"""Values of the harness run (``_harness.py``): the shared state of the run,
its result file, and plain-data summaries of what the file computed.

Imported by the harness under its own top-level name (the child runs with
``-I``, and the harness adds its directory to ``sys.path`` only while it
imports its two siblings): standard library and torch only, never gradlint.
"""

from __future__ import annotations

import builtins
import json
import os

MAX_EVENTS = 200
HEAD = 16
_MISSING = object()


class G:
    """What one run shares between the harness's modules: the child runs one
    file once, so the run's state is process-wide."""

    torch = None
    result = {"status": "starting"}
    result_path = None
    written = False
    # Some memory to give back when the snippet ran out, so the result can be written.
    reserve = None
    state = None
    # Processes the file forks (DataLoader workers, os.fork) inherit this module:
    # only the harness's own process may write the result.
    main_pid = os.getpid()


def _write_result():
    """Write the result once, atomically (a crash mid-write leaves no half file)."""
    if G.written or G.result_path is None or os.getpid() != G.main_pid:
        return
    G.written = True
    G.reserve = None  # the emergency memory, for a run that ended out of memory
    tmp = G.result_path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(G.result, fh, default=str)
        os.replace(tmp, G.result_path)
    except Exception:
        pass


def _exc_types(exc):
    return [c.__name__ for c in type(exc).__mro__ if c not in (object, BaseException)]


def _exc_text(exc):
    try:
        text = str(exc)
    except Exception:
        text = "<unprintable>"
    return text[:2000]


# -- summaries: plain data describing a value, never a reference to it -------


def _tensor_summary(t, values=True):
    torch = G.torch
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
    torch = G.torch
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


def _render(value):
    torch = G.torch
    if torch is not None and isinstance(value, torch.Tensor):
        s = _tensor_summary(value, values=False)
        return f"tensor(shape={tuple(s['shape'])}, dtype={s['dtype']}, requires_grad={s['requires_grad']}, grad_fn={s['grad_fn']})"
    if isinstance(value, str):
        return value[:2000]
    text = repr(value)
    return text if len(text) <= 2000 else text[:2000] + "..."


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
    torch = G.torch
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
