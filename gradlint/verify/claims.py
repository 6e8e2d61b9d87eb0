"""Judge a catalog claim (``[[verify]]``) against what a run measured.

Each claim kind of ``catalog.CLAIM_KINDS`` has one function here that reads
the measurements at a finding's site, region or function and says whether the
behaviour showed, with a one-line account of what was seen. The same
functions judge the fixed run: a claim whose ``after_fix`` is ``gone`` must
not show there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from gradlint.catalog import Claim
from gradlint.verify.plan import SitePlan
from gradlint.verify.runs import RunView, exception_text, fmt_bytes


NOT_MEASURED = "not measured (torch.func and torch.compile refuse the saved-tensor hooks that measure it)"


@dataclass(frozen=True)
class Observation:
    shown: bool
    text: str
    # The memory figure a claim is about (bytes saved for backward, bytes kept alive).
    nbytes: Optional[int] = None


def tensor_text(name: str, s: Dict[str, Any]) -> str:
    if s.get("type") != "tensor":
        return f"{name}: {s.get('type')}"
    grad_fn = s.get("grad_fn")
    text = f"{name}: requires_grad={s.get('requires_grad')} grad_fn={grad_fn}"
    if s.get("inference"):
        text += " (inference tensor)"
    return text


def _tensors(values: Optional[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    out = {}
    for name, s in (values or {}).items():
        if s.get("type") == "tensor":
            out[name] = s
        elif s.get("type") == "seq":
            for i, item in enumerate(s.get("items", [])):
                if item.get("type") == "tensor":
                    out[f"{name}[{i}]"] = item
    return out


def records_graph(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    region = run.region(plan.regions.get(claim.region))
    saved = int(region.get("peak", 0))
    params = int(region.get("peak_params", 0))
    graph = None
    start, end = plan.region_spans.get(claim.region, plan.span)
    for line, st in sorted((run.payload.get("statements") or {}).items(), key=lambda kv: int(kv[0])):
        if st.get("graph") and start <= int(line) <= end:
            graph = st["graph"]
            break
    if run.saved_measured:
        parts = [f"saved for backward: {fmt_bytes(saved)}" + (f" (+ {fmt_bytes(params)} of parameters)" if params else "")]
    else:
        parts = [f"saved for backward: {NOT_MEASURED}"]
    if graph:
        parts.append(f"{graph['name']} (line {run.line(graph['line'])}): grad_fn={graph['grad_fn']}")
    else:
        site = _tensors(run.statement(plan.site).get("first"))
        parts.extend(tensor_text(n, s) for n, s in list(site.items())[:2])
    shown = saved > 0 or graph is not None
    lead = "graph recorded" if shown else "no graph recorded"
    return Observation(shown, f"{lead}: " + "; ".join(parts), saved if run.saved_measured else None)


def retains_memory(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    region = run.region(plan.regions.get(claim.region))
    kept = int(region.get("kept_max", 0))
    if not run.saved_measured:
        return Observation(False, f"memory kept alive: {NOT_MEASURED}")
    if not region.get("exits"):
        return Observation(False, f"the {claim.region.replace('-', ' ')} never ended", None)
    iterations = region.get("iterations") or 0
    text = f"saved by earlier iterations and still alive after the loop: {fmt_bytes(kept)}"
    if iterations:
        text += f" ({iterations} iterations)"
    growth = _node_growth(run, plan)
    if growth is not None:
        first, last, per = growth
        text += (
            f"; autograd nodes reachable from `{plan.receiver}`: {first} after its first update, "
            f"{last} after its last ({per:+.1f} per iteration)"
        )
        return Observation(kept > 0 or per > 0, text, kept)
    return Observation(kept > 0, text, kept)


def _node_growth(run: RunView, plan: SitePlan) -> Optional[Tuple[int, int, float]]:
    """(nodes after the first update, after the last, growth per update) of the
    accumulator the finding adds to. A ``backward()`` in the loop frees the saved
    activations, so bytes alone would say nothing is kept; the graph nodes the
    accumulator still references grow with every iteration."""
    if plan.receiver is None or plan.site is None:
        return None
    st = run.statement(plan.site)
    first = ((st.get("receiver") or {}).get("after") or {}).get("graph_nodes")
    last_entry = st.get("receiver_last") or {}
    last = (last_entry.get("after") or {}).get("graph_nodes")
    updates = last_entry.get("entered") or 0
    if first is None or last is None or updates < 2:
        return None
    return int(first), int(last), (int(last) - int(first)) / (updates - 1)


def _matches(claim: Claim, types: List[str], message: str, at_site: bool = False) -> bool:
    """An exception of the claimed type; raised away from the flagged line
    (``where = "later"``), its message must match too, since only the wording ties
    it to the finding. At the flagged line the type is the claim: wording varies
    between versions (and ``match`` documents torch's)."""
    if claim.exceptions and not set(claim.exceptions) & set(types):
        return False
    return at_site or not claim.match or re.search(claim.match, message) is not None


def _at_site(claim: Claim, event: Dict[str, Any], plan: Optional[SitePlan]) -> bool:
    if claim.where != "finding" or plan is None or plan.site is None:
        return False
    start, end = plan.span
    lines = [line for line in event.get("lines", [event.get("line")]) if line is not None]
    return any(start <= line <= end for line in lines)


def matching(claim: Claim, run: RunView, plan: Optional[SitePlan]) -> List[Dict[str, Any]]:
    """The exceptions of ``run`` that show a ``raises`` claim (for ``where = "finding"``,
    raised while the site ran)."""
    out = []
    first = run.statement(plan.site).get("first_seq") if plan is not None else None
    for event in run.exceptions:
        here = _at_site(claim, event, plan)
        if claim.where == "finding" and not here:
            continue
        if claim.where == "later" and (first is None or event.get("seq", 0) < first):
            continue
        if _matches(claim, event.get("types", []), event.get("message", ""), here):
            out.append(event)
    return out


def raises(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    found = matching(claim, run, plan)
    if found:
        event = found[0]
        return Observation(True, f"raised {exception_text(event)} (line {run.line(event.get('line'))})")
    seen = [exception_text(e, 80) for e in run.exceptions[:2]]
    return Observation(False, "no " + " or ".join(claim.exceptions) + " raised" + (f" (saw {'; '.join(seen)})" if seen else ""))


def warns(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    start, end = plan.span
    for w in run.warnings:
        line = w.get("line")
        if line is None or not start <= line <= end:
            continue
        if claim.category and claim.category not in w.get("types", []):
            continue
        if re.search(claim.match, w.get("message", "")):
            return Observation(True, f"{w['category']} at line {line}: {' '.join(w['message'].split())}")
    return Observation(False, f"no warning matching `{claim.match}` at lines {start}-{end}")


def detaches(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    site = run.statement(plan.site)
    tensors = _tensors(site.get("first"))
    if not tensors:
        return Observation(False, "the statement produced no tensor to inspect")
    attached = {n: s for n, s in tensors.items() if s.get("requires_grad") or s.get("grad_fn")}
    aliases = site.get("aliases") or {}
    parts = []
    for name, s in tensors.items():
        text = tensor_text(name, s)
        if name in aliases:
            text += f", shares storage with `{aliases[name]}`, which requires grad"
        parts.append(text)
    return Observation(not attached, "; ".join(parts[:3]))


def grad_already_disabled(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    site = run.statement(plan.site)
    entered = site.get("entered", 0)
    disabled = site.get("grad_disabled_entries", 0)
    return Observation(
        entered > 0 and disabled == entered,
        f"gradients disabled when line {run.line(plan.site)} started: {disabled} of {entered} times",
    )


def grad_mode_leaks(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    f = run.function(plan.function)
    name = plan.function_name or "the function"
    calls, leaks = f.get("calls", 0), f.get("leaks", 0)
    if not calls:
        return Observation(False, f"`{name}` was never called")
    return Observation(
        leaks > 0,
        f"`{name}` returned with gradients disabled {leaks} of {calls} times, though they were enabled when it was called"
        if leaks
        else f"`{name}` left grad mode as it found it ({calls} calls)",
    )


def _num(x: Any) -> str:
    return f"{x:.6g}" if isinstance(x, (int, float)) else "?"


def bypasses_version_counter(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    site = run.statement(plan.site)
    who = plan.receiver or "the tensor"
    bypass = site.get("bypass")
    if bypass:
        b, a = bypass["before"], bypass["after"]
        return Observation(
            True, f"`{who}` changed (sum {_num(b['sum'])} → {_num(a['sum'])}) but its version stayed {a['version']}"
        )
    first = site.get("receiver") or {}
    b, a = first.get("before") or {}, first.get("after") or {}
    if a.get("kind") == "tensor" and b:
        return Observation(
            False, f"`{who}`: sum {_num(b.get('sum'))} → {_num(a.get('sum'))}, version {b.get('version')} → {a.get('version')}"
        )
    return Observation(False, f"`{who}` is not a tensor here" if a else f"`{who}` could not be read")


def requires_grad_unchanged(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    site = run.statement(plan.site)
    who = plan.receiver or "the target"
    first = site.get("receiver") or {}
    before, after = first.get("before") or {}, first.get("after") or {}
    if after.get("kind") == "module" and before.get("kind") == "module":
        n0, n1, total = before.get("trainable", 0), after.get("trainable", 0), after.get("parameters", 0)
        return Observation(
            total > 0 and n0 == n1, f"`{who}`: {n0} → {n1} of {total} parameters require grad across line {run.line(plan.site)}"
        )
    if after.get("kind") == "tensor" and before.get("kind") == "tensor":
        was, now = before.get("requires_grad"), after.get("requires_grad")
        return Observation(was == now, f"`{who}`.requires_grad: {was} → {now} across line {run.line(plan.site)}")
    return Observation(False, f"`{who}` is neither a tensor nor a module here" if after else f"`{who}` could not be read")


JUDGES: Dict[str, Callable[[Claim, RunView, SitePlan], Observation]] = {
    "records-graph": records_graph,
    "retains-memory": retains_memory,
    "raises": raises,
    "warns": warns,
    "detaches": detaches,
    "grad-already-disabled": grad_already_disabled,
    "grad-mode-leaks": grad_mode_leaks,
    "bypasses-version-counter": bypasses_version_counter,
    "requires-grad-unchanged": requires_grad_unchanged,
}

# What the planner must set up for each kind.
NEEDS_RECEIVER = frozenset({"bypasses-version-counter", "requires-grad-unchanged", "retains-memory"})
NEEDS_FUNCTION = frozenset({"grad-mode-leaks"})
REGION_KINDS = frozenset({"records-graph", "retains-memory"})


def judge(claim: Claim, run: RunView, plan: SitePlan) -> Observation:
    return JUDGES[claim.kind](claim, run, plan)
