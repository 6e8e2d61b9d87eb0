"""``gradlint verify --probes``: run each rule's catalog probe on the installed torch.

A probe is Python code that calls ``observe(label, value)`` to record what it
saw and ``confirm(condition, claim)`` to state what must hold. Each probe runs
in its own sandboxed process, so warnings that torch emits once per process,
or a probe that switches grad mode off globally, cannot affect another one.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

from gradlint.catalog import RuleDoc
from gradlint.verify import sandbox

CONFIRMED = "CONFIRMED"
REFUTED = "REFUTED"
ERROR = "ERROR"


@dataclass
class ProbeResult:
    code: str
    name: str
    claim: str
    verdict: str
    observed: List[Tuple[str, str]] = field(default_factory=list)
    confirms: List[Tuple[bool, str]] = field(default_factory=list)
    error: Optional[str] = None
    seconds: float = 0.0
    torch: Optional[str] = None


def _judge(doc: RuleDoc, outcome: sandbox.RunOutcome) -> ProbeResult:
    assert doc.probe is not None
    result = ProbeResult(doc.code, doc.name, doc.probe.claim, ERROR, seconds=outcome.seconds)
    payload = outcome.payload or {}
    result.torch = payload.get("torch")
    result.observed = [(str(label), str(value)) for label, value in payload.get("observed", [])]
    result.confirms = [(bool(ok), str(claim)) for ok, claim in payload.get("confirms", [])]
    if payload.get("status") == "setup-error":
        result.error = payload.get("error")
    elif outcome.status == "timeout":
        result.error = f"TIMEOUT after {outcome.limits.timeout:g} s"
    elif outcome.status == "crashed":
        result.error = f"CRASHED: {outcome.crash_reason()}"
    elif payload.get("error"):
        err = payload["error"]
        where = f" (probe line {err['line']})" if err.get("line") else ""
        result.error = f"{err['types'][0]}: {err['message']}{where}"
    elif not result.confirms:
        result.error = "the probe called confirm() nowhere"
    elif all(ok for ok, _ in result.confirms):
        result.verdict = CONFIRMED
    else:
        result.verdict = REFUTED
    return result


def run_probes(
    docs: Sequence[RuleDoc],
    limits: sandbox.Limits,
    workers: int,
    on_result: Optional[Callable[[ProbeResult], None]] = None,
) -> List[ProbeResult]:
    """Each probe's result, in order; ``on_result`` gets each one as soon as it
    and those before it are known."""
    docs = [d for d in docs if d.probe is not None]

    def job(doc: RuleDoc):
        assert doc.probe is not None
        config = {"mode": "probe", "code": textwrap.dedent(doc.probe.code), "name": f"<probe {doc.code}>"}
        return lambda: sandbox.run(config, {}, limits)

    results: List[ProbeResult] = []

    def done(index: int, outcome: sandbox.RunOutcome) -> None:
        results.append(_judge(docs[index], outcome))
        if on_result is not None:
            on_result(results[-1])

    sandbox.run_all([job(d) for d in docs], workers, done)
    return results
