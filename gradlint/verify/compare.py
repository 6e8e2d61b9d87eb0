"""Do two runs give the same result? Printed output and values, within a tolerance.

Printed numbers may differ by one unit in their last printed digit (values
a hair apart can round differently) plus ``RTOL``; tensor reprs lose their
``grad_fn=<...>``/``requires_grad=True`` annotations first, since removing
a graph is what many fixes are for. Values (tensors, numbers, modules'
parameters) are compared through the summaries the harness made: shape,
dtype, the sum and sum of magnitudes, and the first elements.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Optional, Tuple

RTOL = 1e-5
ATOL = 1e-6

_ANNOTATION = re.compile(r",\s*(?:grad_fn=<\w+>|requires_grad=True)")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _normalize(text: str) -> List[str]:
    return [_ANNOTATION.sub("", line).rstrip() for line in text.splitlines()]


def _unit(token: str) -> float:
    """One unit in the last printed digit of a number token with decimals;
    0 for integers (counts must match) and for ``2.`` (torch prints whole
    values that way only when they are exact)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    if not decimals:
        return 0.0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _close_tokens(a: str, b: str) -> bool:
    if a == b:
        return True
    if not any(c in a + b for c in ".eE"):
        return False  # integers: counts, indices, sizes
    x, y = float(a), float(b)
    return abs(x - y) <= max(_unit(a), _unit(b)) + RTOL * max(abs(x), abs(y))


def lines_match(a: str, b: str) -> bool:
    a, b = _ANNOTATION.sub("", a).rstrip(), _ANNOTATION.sub("", b).rstrip()
    if a == b:
        return True
    ta, tb = _NUMBER.split(a), _NUMBER.split(b)
    if ta != tb:
        return False
    return all(_close_tokens(x, y) for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)))


def _clip(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def compare_output(original: str, fixed: str, prefix: bool = False) -> Optional[str]:
    """None when the outputs match; with ``prefix``, the original may stop early."""
    a, b = _normalize(original), _normalize(fixed)
    if prefix and a:
        # The original was cut short by an exception: its last line may be partial.
        a = a[:-1] if not original.endswith("\n") else a
    for i, (x, y) in enumerate(zip(a, b)):
        if not lines_match(x, y):
            return f"output line {i + 1}: {_clip(x)!r} as written, {_clip(y)!r} as fixed"
    if len(a) > len(b):
        return f"output line {len(b) + 1}: {_clip(a[len(b)])!r} as written, missing as fixed"
    if len(b) > len(a) and not prefix:
        return f"output line {len(a) + 1}: missing as written, {_clip(b[len(a)])!r} as fixed"
    return None


def _num(x: Any, y: Any) -> bool:
    if isinstance(x, bool) or isinstance(y, bool):
        return x == y
    try:
        fx, fy = float(x), float(y)
    except (TypeError, ValueError):
        return x == y
    if math.isnan(fx) and math.isnan(fy):
        return True
    return math.isclose(fx, fy, rel_tol=RTOL, abs_tol=ATOL)


def _scalar(s: Dict[str, Any]) -> Optional[float]:
    """The number a summary stands for: a Python number or a one-element tensor."""
    if s.get("type") == "number":
        return s["value"]
    if s.get("type") == "tensor" and math.prod(s.get("shape", [0])) == 1 and s.get("head"):
        return s["head"][0]
    return None


def compare_values(a: Dict[str, Any], b: Dict[str, Any], name: str) -> Optional[str]:
    """None when two summaries describe the same value; else the difference."""
    ta, tb = a.get("type"), b.get("type")
    if ta != tb:
        x, y = _scalar(a), _scalar(b)
        if x is not None and y is not None:
            return None if _num(x, y) else f"{name}: {x:.6g} as written, {y:.6g} as fixed"
        return None  # a fix may change a type on purpose (a tensor becomes a float)
    if ta == "tensor":
        if a.get("shape") != b.get("shape") or a.get("dtype") != b.get("dtype"):
            return f"{name}: {a.get('dtype')}{a.get('shape')} as written, {b.get('dtype')}{b.get('shape')} as fixed"
        if "sum" not in a or "sum" not in b:
            return None
        scale = max(abs(a.get("abs_sum", 0.0)), abs(b.get("abs_sum", 0.0)))
        for key in ("sum", "abs_sum"):
            x, y = a[key], b[key]
            if not (math.isnan(x) and math.isnan(y)) and abs(x - y) > RTOL * scale + ATOL:
                return f"{name}: {key} {x:.6g} as written, {y:.6g} as fixed"
        for i, (x, y) in enumerate(zip(a.get("head", []), b.get("head", []))):
            if not _num(x, y):
                return f"{name}: element {i} {x:.6g} as written, {y:.6g} as fixed"
        return None
    if ta in ("number", "bool"):
        return None if _num(a["value"], b["value"]) else f"{name}: {a['value']!r} as written, {b['value']!r} as fixed"
    if ta == "str":
        return None if a["value"] == b["value"] else f"{name}: {_clip(a['value'], 40)!r} as written, {_clip(b['value'], 40)!r} as fixed"
    if ta == "seq":
        if a.get("length") != b.get("length"):
            return f"{name}: {a.get('length')} items as written, {b.get('length')} as fixed"
        for i, (x, y) in enumerate(zip(a.get("items", []), b.get("items", []))):
            diff = compare_values(x, y, f"{name}[{i}]")
            if diff:
                return diff
        return None
    if ta == "module":
        return compare_namespaces(dict(map(tuple, a.get("params", []))), dict(map(tuple, b.get("params", []))), f"{name}.")
    return None


def compare_namespaces(a: Dict[str, Any], b: Dict[str, Any], what: str) -> Optional[str]:
    for name in a:
        if name in b:
            diff = compare_values(a[name], b[name], f"{what}{name}")
            if diff:
                return diff
    return None


def end_state(end: Dict[str, Any]) -> Tuple[str, Any]:
    kind = end.get("kind", "completed")
    if kind == "exit":
        return kind, end.get("code")
    if kind in ("exception", "out-of-memory"):
        return kind, (end.get("types") or ["?"])[0]
    return kind, None
