"""GL301 at run time: who keeps the graphs of a forward alive, and the finding.

When ``monitor`` sees three or more graphs from one line alive at once, it
records a ``_Kept`` and searches the user's frames, then their modules, for
the local, attribute or global whose graph reaches those events
(``KeptAlive``). A ``Mock`` that recorded the tensors it was called with is a
test artifact and is told apart.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional, Set, Tuple

import torch

from gradlint.guard.records import _META_KEY, _Kept
from gradlint.guard.report import GuardFinding, fmt_bytes

# Nodes a graph walk visits at most (only when an accumulation is detected).
WALK_LIMIT = 50_000


class KeptAlive:
    """The search for the holder of kept graphs, and the GL301 finding (a base class
    of ``monitor.Monitor``; these methods read none of its state)."""

    def _find_holder(self, frame, wanted: Set[int]) -> Optional[Tuple[str, str, int, str]]:
        """The local (or attribute of a local) whose graph reaches the most kept events: at least two.

        The previous iteration's own variables (``loss``, ``out``) reach one event
        each; the accumulator reaches all of them.
        """
        best: Optional[Tuple[str, str, int, str]] = None
        best_hits = 1
        for name, value in list(frame.f_locals.items()):
            candidates = [("", value)]
            attrs = getattr(value, "__dict__", None) if not _is_mock(value) else None
            if isinstance(attrs, dict) and not isinstance(value, type):
                candidates += list(attrs.items())
            for attr, inner in candidates:
                hits, nodes = self._reaches(inner, wanted)
                mock = "direct" if _is_mock(inner) else ""
                if hits <= best_hits:
                    # Mocks in a container (a callbacks list): what they recorded.
                    mocks = _mocks_in(inner)
                    if mocks:
                        hits, nodes = self._reaches([a for m in mocks for a in _mock_arguments(m)], wanted)
                        mock = "container"
                if hits > best_hits:
                    best, best_hits = (name, attr, nodes, mock), hits
        return best

    def _find_global_holder(self, module_globals, wanted: Set[int]) -> Optional[Tuple[str, str, int, bool]]:
        """(qualified name, name the code uses, nodes, is a Mock) of a module global or class attribute that holds them."""
        module = module_globals.get("__name__", "?")
        best: Optional[Tuple[str, str, int, bool]] = None
        best_hits = 1
        for name, value in list(module_globals.items()):
            if name.startswith("__"):
                continue
            candidates = []
            if isinstance(value, type):
                if getattr(value, "__module__", None) == module:
                    candidates = [(f"{module}.{name}.{attr}", attr, inner) for attr, inner in list(vars(value).items())
                                  if not attr.startswith("__")]
            elif not callable(value) or _is_mock(value):
                candidates = [(f"{module}.{name}", name, value)]
            for qualified, search, inner in candidates:
                hits, nodes = self._reaches(inner, wanted)
                if hits > best_hits:
                    best, best_hits = (qualified, search, nodes, _is_mock(inner)), hits
        return best

    def _reaches(self, value, wanted: Set[int]) -> Tuple[int, int]:
        """(wanted events reached, nodes visited) from ``value``: a tensor, or a list, tuple or dict of them."""
        if _is_mock(value):
            value = _mock_arguments(value)
        if isinstance(value, torch.Tensor):
            roots = [value.grad_fn] if value.grad_fn is not None else []
        elif isinstance(value, (list, tuple)):
            roots = [v.grad_fn for v in value if isinstance(v, torch.Tensor) and v.grad_fn is not None]
        elif isinstance(value, dict):
            roots = [v.grad_fn for v in value.values() if isinstance(v, torch.Tensor) and v.grad_fn is not None]
        else:
            return 0, 0
        seen: Dict[int, Any] = {}
        hits: Set[int] = set()
        stack: List[Optional[torch.autograd.graph.Node]] = list(roots)
        while stack and len(seen) < WALK_LIMIT:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen[id(node)] = node  # kept so that ids are not reused during the walk
            # `metadata` is a property of the C++ nodes (torch's stubs declare a method).
            mark = getattr(node, "metadata").get(_META_KEY) if hasattr(node, "metadata") else None
            if mark is not None:
                ev = mark[1]()
                if ev is not None and id(ev) in wanted:
                    hits.add(id(ev))
            stack.extend(n for n, _ in node.next_functions)
        return len(hits), len(seen)

    @staticmethod
    def _kept_finding(kept: _Kept, test: str, alive: bool) -> GuardFinding:
        if kept.kind == "mock":
            holder = f"a `Mock`'s `call_args_list` (`{kept.holder}` recorded the call arguments)"
        elif kept.kind == "mock-in":
            holder = f"a `Mock`'s `call_args_list` (a Mock in `{kept.holder}` recorded the call arguments)"
        elif kept.holder:
            holder = f"`{kept.holder}`"
        else:
            holder = "an object that outlives the iteration"
        parts = []
        if kept.nodes:
            parts.append(f"+{max(1, kept.nodes // max(1, kept.steps))} autograd nodes")
        if kept.bytes_per_step:
            parts.append(f"+{fmt_bytes(kept.bytes_per_step)} saved for backward")
        per_step = (" and ".join(parts) or "+1 graph") + " per step"
        if not kept.bytes_per_step:
            per_step += ", the nodes only: backward freed the saved tensors"
        if os.path.normcase(kept.forward.path) == os.path.normcase(kept.site.path):
            forward = f"line {kept.forward.row}"
        else:
            forward = f"{os.path.basename(kept.forward.path)}:{kept.forward.row}"
        lifetime = "after its iteration"
        if kept.kind == "global":
            lifetime = "after its iteration and after the test, as long as the module lives"
        if alive:
            lifetime += "; they were still alive when the session ended"
        advice = "keep `.item()` or `.detach()` of it instead"
        if kept.kind.startswith("mock"):
            advice = ("a test artifact, not a defect of the code under test: the Mock keeps every argument it was "
                      "called with; `reset_mock()` it, or assert on detached values")
        details = {"steps": kept.steps, "bytes_per_step": kept.bytes_per_step, "nodes": kept.nodes,
                   "holder": kept.holder}
        if kept.kind != "local":
            details["kind"] = "mock" if kept.kind.startswith("mock") else kept.kind
        if kept.kind.startswith("mock"):
            details["category"] = "test-artifact"
        return GuardFinding(
            "GL301",
            f"{holder} keeps the autograd graph of every call of the forward at {forward} alive {lifetime} "
            f"({kept.steps} graphs alive at once, growing step after step: {per_step}); {advice}",
            kept.site, test, related=kept.forward, details=details,
        )


def _is_mock(value) -> bool:
    mock = sys.modules.get("unittest.mock")
    return mock is not None and isinstance(value, mock.NonCallableMock)


def _mocks_in(value) -> list:
    """Mocks in a list or tuple, or in its tuples (``[("name", mock)]``)."""
    if not isinstance(value, (list, tuple)) or len(value) > 1000:
        return []
    out = []
    for item in value:
        if _is_mock(item):
            out.append(item)
        elif isinstance(item, tuple):
            out.extend(i for i in item if _is_mock(i))
    return out


def _mock_arguments(mock) -> list:
    """The tensors among the arguments a Mock (and its children) recorded."""
    out: List[torch.Tensor] = []
    for call in list(mock.mock_calls):
        try:
            _, args, kwargs = call
        except (TypeError, ValueError):
            continue
        for value in (*args, *kwargs.values()):
            if isinstance(value, (list, tuple)):
                out.extend(value)
            else:
                out.append(value)
    return out
