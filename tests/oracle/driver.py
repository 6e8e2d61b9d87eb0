"""Runs a batch of oracle programs in one sandboxed process (the verify harness's
probe mode): torch is imported once, each program gets a fresh module namespace,
and grad mode, RNG seeds and the default dtype are reset before each.

A program defines ``run()`` (or does its work at module level); what it returns,
what it prints, the exception it raises and the gradient of every parameter and leaf it created are recorded.
The results go to the real stdout as one JSON line per program, after MARKER.
"""

import asyncio
import contextlib
import io
import json
import math
import random
import sys
import traceback
import warnings

import torch

MARKER = "@@oracle@@ "


def _reset():
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.manual_seed(0)
    random.seed(0)
    try:
        import numpy

        numpy.random.seed(0)
    except ImportError:
        pass
    # A program that left an event loop behind must not hand it to the next one.
    asyncio.set_event_loop(None)


def _number(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return repr(v)
    return v


def _describe(value, depth=0):
    """Plain data for a value: a tensor's dtype, shape and every element; the type
    of everything else. A tensor's graph (grad_fn, requires_grad) is left out: a
    fix may remove a graph; whether that mattered shows in the gradients."""
    if depth > 4:
        return "..."
    if isinstance(value, torch.Tensor):
        d = value.detach()
        return {"tensor": str(d.dtype), "shape": list(d.shape), "values": [_number(v) for v in d.reshape(-1).tolist()[:64]]}
    if isinstance(value, torch.nn.utils.rnn.PackedSequence):
        return {"packed": _describe(value.data, depth + 1)}
    if isinstance(value, torch.nn.Module):
        return {"module": type(value).__name__}
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return {type(value).__name__: _number(value)}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [_describe(v, depth + 1) for v in value[:32]]}
    if isinstance(value, dict):
        return {"dict": [[str(k), _describe(v, depth + 1)] for k, v in list(value.items())[:32]]}
    try:
        import numpy

        if isinstance(value, numpy.ndarray):
            return {"ndarray": str(value.dtype), "values": [_number(v) for v in value.reshape(-1).tolist()[:64]]}
        if isinstance(value, numpy.generic):
            return {type(value).__name__: _number(value.item())}
    except ImportError:
        pass
    return {"object": type(value).__name__}


def _gradients(namespace, returned):
    """``.grad`` of every parameter of the modules and of every leaf tensor reachable
    from the module's globals and the returned value (one level into containers
    and plain objects)."""
    found = {}
    seen = set()

    def visit(name, value, depth):
        if id(value) in seen or depth > 3:
            return
        seen.add(id(value))
        if isinstance(value, torch.nn.Module):
            for pname, p in value.named_parameters():
                found[f"{name}.{pname}"] = p
        elif isinstance(value, torch.Tensor):
            if value.is_leaf and value.requires_grad:
                found[name] = value
        elif isinstance(value, torch.optim.Optimizer):
            for i, group in enumerate(value.param_groups):
                for j, p in enumerate(group["params"]):
                    found.setdefault(f"{name}.param_groups[{i}][{j}]", p)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value[:32]):
                visit(f"{name}[{i}]", v, depth + 1)
        elif isinstance(value, dict):
            for k, v in list(value.items())[:32]:
                visit(f"{name}[{k!r}]", v, depth + 1)
        elif hasattr(value, "__dict__") and not isinstance(value, type) and type(value).__module__ == "__oracle__":
            for k, v in list(vars(value).items())[:32]:
                visit(f"{name}.{k}", v, depth + 1)

    for key, value in list(namespace.items()):
        if not key.startswith("__"):
            visit(key, value, 0)
    visit("<returned>", returned, 0)
    out = {}
    for name, t in sorted(found.items()):
        grad = t.grad
        out[name] = {"value": _describe(t), "grad": None if grad is None else _describe(grad)}
    return out


def run_program(name, source):
    _reset()
    namespace = {"__name__": "__oracle__"}
    buffer = io.StringIO()
    result = {"name": name, "exception": None, "returned": None}
    returned = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with contextlib.redirect_stdout(buffer):
                code = compile(source, name, "exec")
                exec(code, namespace)
                # A program without ``run()`` (a catalog example, a fixture) did its work
                # when its module ran.
                returned = namespace["run"]() if callable(namespace.get("run")) else None
            result["returned"] = _describe(returned)
        except BaseException as exc:  # noqa: B036 - a SystemExit is a result too
            tb = traceback.extract_tb(exc.__traceback__)
            line = next((fr.lineno for fr in reversed(tb) if fr.filename == name), None)
            if isinstance(exc, SyntaxError) and exc.filename == name:
                line = exc.lineno  # raised by compile(): no frame of the program
            result["exception"] = {"type": type(exc).__name__, "message": str(exc)[:500], "line": line}
    result["stdout"] = buffer.getvalue()[:4000]
    try:
        result["gradients"] = _gradients(namespace, returned)
    except Exception as exc:
        result["gradients"] = {"<error>": f"{type(exc).__name__}: {exc}"}
    torch.set_grad_enabled(True)
    return result


def main():
    with open("programs.json", encoding="utf-8") as fh:
        programs = json.load(fh)
    real = sys.__stdout__
    for name, source in programs:
        real.write(MARKER + json.dumps(run_program(name, source), default=str) + "\n")
        real.flush()


main()
